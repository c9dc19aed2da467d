/**
 * The offline demo's watch over one call's provider answers. The replay answers an unrecorded
 * variant of a recorded request with the nearest recording and names, in a header, the request's
 * params that recording was not made with (src/demo/replay/held-params.ts). One call's watch gathers
 * them, so that:
 * - a search's answer says so in a note (spec 2.3 `notes`; record actions have none, spec 2.7);
 * - a capability's refusal of such a recording (a return-flights search answered with the outbound
 *   flights, "no such place" from the recording that stands in for any unknown name, another video's
 *   player) is answered as what it is, no recording of this request: not retryable, not the caller's
 *   input at fault.
 * Only with QUARRY_DEMO=1 (SearchRunner, run-search.ts); a live deployment never reads the header.
 */
import { ApiError } from "../errors.ts";
import { parseUnheldHeader, UNHELD_HEADER, unheldNote } from "./replay/replay-headers.ts";
import { demoNoRecording } from "./no-recording.ts";
import type { UpstreamClient, UpstreamRequest } from "../upstream/types.ts";

/** Failures that, after a loosely matched recording, mean "not recorded". */
const UNRECORDED_CODES: ReadonlySet<string> = new Set(["provider_error", "invalid_request"]);

export class DemoRecordings {
  private readonly unheld = new Set<string>();

  /** The client, noting what each replayed answer was not recorded with. */
  watch(client: UpstreamClient): UpstreamClient {
    return {
      send: (async (request: UpstreamRequest, signal: AbortSignal, clientGone?: () => boolean) => {
        const res = await client.send(request, signal, clientGone);
        for (const param of parseUnheldHeader(res.headers[UNHELD_HEADER])) this.unheld.add(param);
        return res;
      }) as UpstreamClient["send"],
      hasKey: (provider) => client.hasKey(provider),
      close: () => client.close(),
    };
  }

  /** The answer's note when a recording answered a request it was not made for; else undefined. */
  note(): string | undefined {
    return this.unheld.size === 0 ? undefined : unheldNote([...this.unheld]);
  }

  /** The call's failure as the demo says it: "no recording" after a loosely matched recording. */
  failure(failure: unknown): unknown {
    if (this.unheld.size === 0 || !(failure instanceof ApiError) || !UNRECORDED_CODES.has(failure.code)) return failure;
    const said = failure.violations?.length ? failure.violations.map((v) => `${v.path}: ${v.message}`).join("; ") : failure.message;
    return demoNoRecording(`: the nearest recording was not made with ${[...this.unheld].join(", ")}, and it does not answer this request (it gave: ${said})`, failure);
  }
}
