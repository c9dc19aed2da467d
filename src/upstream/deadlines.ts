/**
 * Deadline signals for capability calls, shared by the calls that start within the same few
 * milliseconds. A call's deadline (15 s / 40 s) used to be its own AbortController and timer;
 * under load creating an AbortSignal per call was one of the event loop's larger costs
 * (docs/performance.md, "Where the event loop's time goes"). Calls that start within one window
 * (10 ms) with the same deadline get the same signal, which aborts `windowMs` after the deadline of
 * the window's first call: every call gets at least its full deadline and at most `windowMs` more.
 *
 * Sharing is safe because a signal only carries "time is up": no call aborts it early, and every
 * listener (undici's, a retry's sleep) is removed when its call ends, so a finished call leaves
 * nothing on the signal.
 *
 * Each signal also records when it aborts (`deadlineOf`), so the upstream client can tell whether a
 * call's turn at a paced provider (src/upstream/pacing.ts) would come after its deadline.
 */
import { setMaxListeners } from "node:events";

/** When each deadline signal aborts, on the `performance.now()` clock. */
const abortsAt = new WeakMap<AbortSignal, number>();

/**
 * The `performance.now()` time at which a signal made by DeadlineSignals aborts (the caller's
 * deadline); undefined for any other signal, whose deadline is not known in advance.
 */
export function deadlineOf(signal: AbortSignal): number | undefined {
  return abortsAt.get(signal);
}

interface OpenWindow {
  closesAt: number;
  signal: AbortSignal;
}

export class DeadlineSignals {
  private readonly open = new Map<number, OpenWindow>();

  constructor(
    private readonly windowMs = 10,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A signal that aborts no sooner than `deadlineMs` from now and no later than `deadlineMs + windowMs`. */
  signal(deadlineMs: number): AbortSignal {
    const now = this.now();
    const open = this.open.get(deadlineMs);
    if (open !== undefined && now < open.closesAt) return open.signal;
    const controller = new AbortController();
    // Every call of the window waits on it at once: no "possible leak" warning past 10 listeners.
    setMaxListeners(0, controller.signal);
    // Calls join until closesAt; firing windowMs after the first call's deadline covers the last.
    const timer = setTimeout(() => controller.abort(new Error("deadline")), deadlineMs + this.windowMs);
    timer.unref();
    // The timer runs on the real clock whatever `now` is (tests inject theirs for the windows only).
    abortsAt.set(controller.signal, performance.now() + deadlineMs + this.windowMs);
    this.open.set(deadlineMs, { closesAt: now + this.windowMs, signal: controller.signal });
    return controller.signal;
  }
}

/**
 * `promise` as one caller waits for it: settled as it settles, or rejected with `reason()` (by default
 * the signal's own reason) once the caller's `signal` aborts first. For work shared by several callers
 * (a token request, an index load) that goes on for the others when one caller's deadline passes.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, reason: () => unknown = () => signal.reason): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
