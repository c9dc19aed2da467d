/**
 * Drift tests: a provider that changed its answer makes an error, never a wrong or empty answer.
 * Each case serves a real recording with one field its mapper reads renamed (the replay's `rename`
 * fault; `replace` for text answers) and expects, over HTTP: `502 provider_error` naming the
 * provider and that field's JSON pointer, nothing charged, and one warning log line naming the
 * provider and the pointer (never a key).
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, describe, test } from "node:test";
import { providerDef } from "../../src/providers.ts";
import { startCapabilityKit, type CapabilityKit } from "./capability-kit.ts";

export interface DriftCase {
  /** The provider id whose recording drifts (the replay prefix; `<id>-<host>` for another host). */
  provider: string;
  capability: string;
  /** The execute body (an inspect example, so a recording answers it). */
  body: Record<string, unknown>;
  /** A record action to drift instead of the search: the search answers first, then the action's answer drifts. */
  action?: string;
  /** The key renamed, as a JSON pointer into the recording; the error names it. */
  pointer?: string;
  /** For text answers: replace this text of the recording… */
  find?: string;
  /** …with this, and expect this pointer in the error ("" for the whole body). */
  replaceWith?: string;
  expectPointer?: string;
  /** Other environment for the kit (a setting that picks this provider). */
  env?: Record<string, string>;
}

/** One `describe` with a test per case, on one kit per capability whose warnings are captured. */
export function driftSuite(title: string, cases: readonly DriftCase[]): void {
  describe(title, () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        done();
      },
    });
    const kits = new Map<string, CapabilityKit>();
    const kitFor = async (c: DriftCase) => {
      const id = `${c.capability} ${JSON.stringify(c.env ?? {})}`;
      let kit = kits.get(id);
      if (kit === undefined) {
        kit = await startCapabilityKit(c.capability, { logger: { level: "warn", stream: sink }, ...(c.env ? { env: c.env } : {}) });
        kits.set(id, kit);
      }
      return kit;
    };
    after(async () => {
      for (const kit of kits.values()) await kit.close();
    });

    for (const c of cases) {
      const what = c.pointer ?? `"${c.find}"`;
      test(`${c.provider}: ${c.capability}${c.action ? ` ${c.action}` : ""} with ${what} changed is 502 naming it, free, and logged`, async () => {
        const kit = await kitFor(c);
        const usedBefore = await kit.used();
        let recordId: string | undefined;
        if (c.action !== undefined) {
          const found = await kit.execute(c.body);
          assert.equal(found.status, 200, JSON.stringify(found.body));
          recordId = found.body.results[0]?.record_id;
          assert.ok(recordId, "the search found a record to act on");
        }
        const usedAtStart = await kit.used();
        const pointer = c.expectPointer ?? c.pointer ?? "";
        const from = lines.length;
        kit.h.replay.setFault(
          c.provider,
          c.pointer !== undefined ? { kind: "rename", pointer: c.pointer, to: `${c.pointer.split("/").pop()}_renamed` } : { kind: "replace", find: c.find!, with: c.replaceWith ?? "" },
        );
        try {
          const res = recordId === undefined ? await kit.execute(c.body) : await kit.action(recordId, c.action!);
          assert.equal(res.status, 502, JSON.stringify(res.body));
          assert.equal(res.body.error.code, "provider_error");
          const title = providerDef(c.provider.split("-")[0]!)?.title ?? c.provider;
          assert.ok(res.body.error.message.includes(title), `names the provider (${title}): ${res.body.error.message}`);
          if (pointer !== "") assert.ok(res.body.error.message.includes(pointer), `names ${pointer}: ${res.body.error.message}`);
          assert.equal(res.body.error.retryable, false);
        } finally {
          kit.h.replay.setFault(c.provider, null);
        }
        assert.equal(await kit.used(), usedAtStart, "nothing charged for the drifted call");
        assert.ok(usedAtStart >= usedBefore, "usedAtStart >= usedBefore");
        const logged = lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>);
        const warning = logged.find((l) => l.msg === "provider answer drifted");
        assert.ok(warning, `a warning was logged: ${JSON.stringify(logged)}`);
        assert.equal(warning.level, 40);
        assert.equal(warning.provider, c.provider.split("-")[0]);
        assert.equal(warning.pointer, pointer);
        assert.ok(!JSON.stringify(warning).includes("demo-key"), "no key in the log line");
      });
    }
  });
}
