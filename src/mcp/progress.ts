/**
 * Progress on slow MCP calls. A tools/call that carries `_meta.progressToken` is answered on an
 * event stream (the Streamable HTTP response, SSE), and once it has run for a second it sends
 * `notifications/progress` for each step it knows (a provider answered, a page was fetched, a
 * reviewer answered), and a heartbeat every ten seconds while nothing happens, so hosts that give
 * up on silent calls after about a minute (or reset their timeout on progress) keep waiting. Calls
 * quicker than a second send none. Without a token nothing changes: the answer is one JSON body.
 * Deadlines are the capability's, unchanged.
 */
import { isObject } from "../validation.ts";

/** A call quicker than this tells no progress. */
export const PROGRESS_AFTER_MS = 1000;
/** While nothing happens, a heartbeat this often. */
export const HEARTBEAT_MS = 10_000;

type ProgressToken = string | number;

type Notify = (notification: { method: "notifications/progress"; params: { progressToken: ProgressToken; progress: number; message: string } }) => Promise<void>;

/** The progress token a tools/call asked for, if any. */
export function progressTokenOf(meta: unknown): ProgressToken | undefined {
  const token = isObject(meta) ? meta.progressToken : undefined;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** Whether any tools/call of a message (or batch) asked for progress: its answer is then an event stream. */
export function wantsProgress(message: unknown): boolean {
  for (const m of Array.isArray(message) ? message : [message]) {
    if (isObject(m) && m.method === "tools/call" && isObject(m.params) && progressTokenOf(m.params._meta) !== undefined) return true;
  }
  return false;
}

/** One followed call: `step` is the CallOrigin's progress; `stop` when the call has its answer. */
export class ProgressReporter {
  private readonly started = performance.now();
  private sent = 0;
  private steps = 0;
  private last = "started";
  private stopped = false;
  private readonly first: NodeJS.Timeout;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly token: ProgressToken,
    private readonly notify: Notify,
  ) {
    this.first = setTimeout(() => {
      this.send(`working: ${this.describe()}`);
      this.beat();
    }, PROGRESS_AFTER_MS);
  }

  readonly step = (text: string): void => {
    if (this.stopped) return;
    this.steps += 1;
    this.last = text;
    if (performance.now() - this.started >= PROGRESS_AFTER_MS) {
      this.send(text);
      this.beat();
    }
  };

  stop(): void {
    this.stopped = true;
    clearTimeout(this.first);
    if (this.heartbeat !== undefined) clearTimeout(this.heartbeat);
  }

  private describe(): string {
    return this.steps === 0 ? "started" : `${this.steps} step${this.steps === 1 ? "" : "s"} done, the last: ${this.last}`;
  }

  /** The next heartbeat, HEARTBEAT_MS after the latest notification. */
  private beat(): void {
    if (this.heartbeat !== undefined) clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => {
      this.send(`still working: ${this.describe()}`);
      this.beat();
    }, HEARTBEAT_MS);
  }

  private send(message: string): void {
    if (this.stopped) return;
    this.sent += 1;
    // A client gone mid-call: nothing to tell; the call itself is abandoned by its own check.
    this.notify({ method: "notifications/progress", params: { progressToken: this.token, progress: this.sent, message } }).catch(() => undefined);
  }
}
