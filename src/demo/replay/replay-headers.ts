/**
 * What the replay upstream tells the gateway beside a recorded answer, in response headers. Its own
 * module so the gateway (src/upstream/client.ts, src/search/run-search.ts) does not import the
 * replay server.
 */

/**
 * Sent with a 404 that means "nothing recorded for this request" (not a recorded 404): the offline
 * demo's upstream client turns it into a plain "no recording" answer.
 */
export const REPLAY_MISS_HEADER = "x-replay-miss";

/**
 * Sent with a recording that answers a request it was not made for: the params it was made without
 * (held-params.ts), each `encodeURIComponent(name=value)`, joined by `&`.
 */
export const UNHELD_HEADER = "x-replay-unheld";

/** The name under which the header gives the path a stand-in page answered (`path=/www.apple.com/`). */
export const STAND_IN_PATH = "path";

/** The header's value for these params (ASCII, whatever they hold: a lone surrogate becomes U+FFFD). */
export function unheldHeader(params: readonly string[]): string {
  return params.map((p) => encodeURIComponent(p.toWellFormed())).join("&");
}

/** The params a response's UNHELD_HEADER names (none when absent; a malformed part is dropped). */
export function parseUnheldHeader(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === "") return [];
  const out: string[] = [];
  for (const part of text.split("&")) {
    try {
      out.push(decodeURIComponent(part));
    } catch {
      // Not guessed at.
    }
  }
  return out;
}

/** How unheldNote begins (the demo's check counts the answers that carry one). */
export const UNHELD_NOTE_PREFIX = "DEMO: answered from a recording not made with ";

/** The answer's note when the recordings that served it were not made with some of its params. */
export function unheldNote(params: readonly string[]): string {
  return `${UNHELD_NOTE_PREFIX}${params.join(", ")} (provider parameters); a live provider would apply them, so its results may differ.`;
}

/** Whether the replay answered with a stand-in page for a path it holds no copy of. */
export function answeredByStandInPage(unheld: readonly string[]): boolean {
  return unheld.some((p) => p.startsWith(`${STAND_IN_PATH}=`));
}
