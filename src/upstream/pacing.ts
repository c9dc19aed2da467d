/**
 * Request pacing for providers that publish a request rate (PROVIDERS.md: MusicBrainz allows about one
 * request a second). A provider declares `minIntervalMs` in its definition (src/providers.ts); the upstream
 * client gives it one Pacer and takes a turn before every attempt, retries included.
 *
 * Per process, not shared across instances through Redis: each instance keeps its own queue, so N
 * instances send up to N requests per interval in total. Providers such as MusicBrainz count per
 * client IP, so instances behind their own addresses each stay within their own allowance; instances
 * sharing one address can together exceed it, and the provider's refusals (MusicBrainz answers 503)
 * are then handled as any provider failure (bounded, paced retries; provider_error; the breaker). A
 * shared limiter would put a Redis round trip, and Redis's availability, in front of every paced
 * call, on a fallback path (music.search's MusicBrainz, used when Deezer is down) that must keep
 * working when other things fail; what pacing must prevent is one instance bursting past the limit
 * exactly when the fallback carries all the traffic.
 *
 * Starts are at least `intervalMs` apart, in arrival order. A request whose turn would come at or
 * after its deadline is refused at once (TooLateForTurn) instead of waiting uselessly; one aborted
 * while waiting leaves the queue at once and the requests behind it move up. One whose caller has
 * gone (its `gone` check, see ClientGone) gives up its place without taking a turn: it is dropped
 * when the next request arrives or when its turn comes, whichever is first, and it neither delays
 * nor counts against the requests behind it. One timer per pacer, only while someone waits, cleared
 * when the queue empties; no polling.
 */
import { ClientGone } from "../errors.ts";

/** The request's turn would come at or after its deadline: refused without waiting. */
export class TooLateForTurn extends Error {
  constructor(
    /** How long the request would have waited for its turn. */
    readonly waitMs: number,
  ) {
    super(`the turn would come in ${Math.ceil(waitMs)} ms, after the deadline`);
  }
}

interface Waiter {
  signal: AbortSignal;
  gone: (() => boolean) | undefined;
  resolve(startedAt: number): void;
  reject(reason: unknown): void;
  onAbort(): void;
}

export class Pacer {
  /** When the last request started (performance.now() clock). */
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Waiting requests, oldest first. Short: the deadline check bounds it to about deadline / interval. */
  private readonly waiting: Waiter[] = [];
  /** Fires at the head's turn; set only while `waiting` is not empty. */
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Wait for this request's turn. Resolves when it may start, with the start time it was given
   * (performance.now() clock; the next turn is counted from it); rejects
   * at once with TooLateForTurn when its turn would come at or after `deadlineAt` (performance.now()
   * clock; undefined when unknown), with the signal's reason when the signal aborts first, and with
   * ClientGone when `gone` says the caller left before its turn.
   */
  take(signal: AbortSignal, deadlineAt: number | undefined, gone?: () => boolean): Promise<number> {
    this.dropGone();
    const now = this.now();
    const free = this.lastStart + this.intervalMs;
    if (this.waiting.length === 0 && now >= free) {
      this.lastStart = now;
      return Promise.resolve(now);
    }
    // Nobody ahead leaves except by starting (on schedule) or aborting (which only brings this turn closer).
    const turn = Math.max(now, free) + this.waiting.length * this.intervalMs;
    if (deadlineAt !== undefined && turn >= deadlineAt) return Promise.reject(new TooLateForTurn(turn - now));
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { signal, gone, resolve, reject, onAbort: () => this.leave(waiter, signal.reason) };
      signal.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
      this.schedule();
    });
  }

  /** Requests waiting and whether a timer is pending (read by the client's pacingState, for tests). */
  state(): { waiting: number; timer: boolean } {
    return { waiting: this.waiting.length, timer: this.timer !== undefined };
  }

  private schedule(): void {
    if (this.timer !== undefined || this.waiting.length === 0) return;
    // Ref'd on purpose: a waiting request is work in progress (a CLI run must not exit under it).
    // It never outlives the queue: `leave` clears it when the last waiter aborts.
    this.timer = setTimeout(this.release, Math.max(0, this.lastStart + this.intervalMs - this.now()));
  }

  /** The head's turn: start it, then schedule the next one. */
  private readonly release = (): void => {
    this.timer = undefined;
    // Timers may fire a fraction of a millisecond early against performance.now(): never start early.
    if (this.now() < this.lastStart + this.intervalMs) {
      this.schedule();
      return;
    }
    // A waiter whose caller has gone does not take the turn: the next one does.
    this.dropGone();
    const head = this.waiting.shift();
    if (head === undefined) return;
    head.signal.removeEventListener("abort", head.onAbort);
    this.lastStart = this.now();
    this.schedule();
    head.resolve(this.lastStart);
  };

  /** A waiter leaves the queue; the turn timer does not depend on who is first, so it stays. */
  private leave(waiter: Waiter, reason: unknown): void {
    const index = this.waiting.indexOf(waiter);
    if (index !== -1) this.waiting.splice(index, 1);
    if (this.waiting.length === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    waiter.reject(reason);
  }

  /** Waiters whose callers have gone leave (before a newcomer's turn is counted, and at each turn). */
  private dropGone(): void {
    for (const waiter of this.waiting.filter((w) => w.gone?.())) {
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      this.leave(waiter, new ClientGone());
    }
  }
}

/** "about one request a second" for 1000 ms; the rate in words for other intervals. */
export function describeRate(intervalMs: number): string {
  if (intervalMs === 1000) return "about one request a second";
  if (intervalMs < 1000) return `about ${Math.round(1000 / intervalMs)} requests a second`;
  return `about one request every ${Math.round(intervalMs / 100) / 10} s`;
}
