/**
 * Per-key request rate limits: a window that starts at a key's first request and lasts
 * `windowMs`. In memory for one instance, or in Redis (one atomic script) so several instances
 * share one limit. If Redis fails or does not answer within REDIS_COMMAND_TIMEOUT_MS, the call is
 * counted in this instance's memory instead, and so are the calls after it until a background check
 * finds Redis answering again; one warning says Redis went and one that it is back. A limiter outage
 * must not take the whole service down, nor slow it (documented in docs/architecture.md).
 */
import { performance } from "node:perf_hooks";
import { createClient } from "redis";
import { ApiError } from "../errors.ts";

/**
 * Longest one limiter command may take before its call is counted in memory instead (Redis answers
 * in well under a millisecond; this covers a busy server without letting a stalled one hold every
 * request). Calls share one timer per half of this, so each is given between 1 and 1.5 times it.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** Longest `RedisRateLimiter.connect` waits (connection, handshake, script load) before failing. */
export const REDIS_CONNECT_TIMEOUT_MS = 5000;
/** While Redis is unavailable, at most one background check this often whether it is back. */
export const REDIS_PROBE_INTERVAL_MS = 1000;
/** While Redis stays unavailable, at most one reminder line this often. */
export const REDIS_OUTAGE_REMINDER_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /** Liveness of the backing store (Redis); resolves for memory. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

function decide(count: number, limit: number, resetMs: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(0, resetMs) };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Drop finished windows so memory stays bounded by the keys active in the last window.
    this.timer = setInterval(() => {
      const t = this.now();
      for (const [k, w] of this.windows) if (w.resetAt <= t) this.windows.delete(k);
    }, 60_000);
    this.timer.unref();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return decide(w.count, limit, w.resetAt - t);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}

// INCR the window counter; start the window's expiry on its first hit. Returns {count, pttl}.
const SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {c, ttl}`;

export interface LimiterLogger {
  warn(obj: object, msg: string): void;
}

export interface RedisLimiterOptions {
  /** Where the outage and recovery lines go (the server's logger); without one they are not written. */
  logger?: LimiterLogger;
  /** Bound of one command; default REDIS_COMMAND_TIMEOUT_MS. */
  commandTimeoutMs?: number;
  /** Bound of `connect`; default REDIS_CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

const TIMED_OUT = Symbol("timed out");
type TimedOut = typeof TIMED_OUT;

/**
 * Bounds promises without a timer per call: calls share one timer, which fires between `ms` and
 * 1.5 × `ms` after each of them started; a new one is made at most every `ms` / 2 while calls come.
 */
class SharedDeadline {
  private at = Number.NEGATIVE_INFINITY;
  private expired: Promise<TimedOut> = Promise.resolve(TIMED_OUT);

  constructor(readonly ms: number) {}

  race<T>(work: Promise<T>): Promise<T | TimedOut> {
    // Monotonic: a wall clock set back must not hand calls a deadline that has already passed.
    const now = performance.now();
    if (this.at < now + this.ms) {
      const wait = Math.ceil(this.ms * 1.5);
      this.at = now + wait;
      this.expired = new Promise((resolve) => setTimeout(resolve, wait, TIMED_OUT).unref());
    }
    return Promise.race([work, this.expired]);
  }
}

/** The URL with its password replaced by `***`, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(REDIS_URL is not a valid URL)";
  }
}

/** `text` without the URL's password in it (raw or decoded), should an error message quote it. */
function scrub(text: string, url: string): string {
  let password = "";
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (!password) return text;
  const forms = new Set([password]);
  try {
    forms.add(decodeURIComponent(password));
  } catch {
    // Not percent-encoded: the raw form is enough.
  }
  for (const form of forms) text = text.split(form).join("***");
  return text;
}

/** Key the background check runs the script on (its own short window; never a real key's). */
const PROBE_KEY = "quarry:rl:~probe";

interface Outage {
  since: number;
  /** Calls counted in memory since. */
  calls: number;
  lastLineAt: number;
  error: string;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly client: ReturnType<typeof createClient>;
  private readonly fallback = new MemoryRateLimiter();
  private readonly deadline: SharedDeadline;
  private readonly logger: LimiterLogger | undefined;
  private sha: string | null = null;
  /** Null while calls are counted in Redis; set from a failed command until a check finds it back. */
  private outage: Outage | null = null;
  private probing = false;
  private nextProbeAt = 0;
  /** The client's last error, for the line of a failed start. */
  private lastError: string | null = null;
  /** Connected once: from then on the client's errors are outages (before, `connect` reports them). */
  private started = false;
  private closed = false;

  private constructor(
    url: string,
    private readonly where: string,
    options: RedisLimiterOptions,
  ) {
    this.logger = options.logger;
    this.deadline = new SharedDeadline(options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS);
    this.client = createClient({
      url,
      // Fail fast while disconnected instead of queueing commands behind a dead connection.
      disableOfflineQueue: true,
      // Calls are bounded here (SharedDeadline). The client's own per-command timeout stops once a
      // command is written, so it cannot bound a server that stopped answering; off, it costs no
      // timer per call.
      commandOptions: { timeout: 0 },
      socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
    });
    // Every failed reconnect attempt is an error here: noted, not logged one by one.
    this.client.on("error", (err: Error) => {
      this.lastError = err.message;
      if (this.started && !this.closed) this.unavailable(err.message);
    });
    // Reconnected: check now rather than at the next call.
    this.client.on("ready", () => {
      if (this.outage !== null) this.probe(true);
    });
  }

  /**
   * Connect and load the script, within `connectTimeoutMs` (default 5 s). On failure the client is
   * closed again and the error (503 service_unavailable) names the URL without its password.
   */
  static async connect(url: string, options: RedisLimiterOptions = {}): Promise<RedisRateLimiter> {
    const where = redactRedisUrl(url);
    const timeoutMs = options.connectTimeoutMs ?? REDIS_CONNECT_TIMEOUT_MS;
    let limiter: RedisRateLimiter;
    try {
      limiter = new RedisRateLimiter(url, where, options);
    } catch (error) {
      throw new ApiError("service_unavailable", `Redis at ${where} cannot be used`, {
        cause: new Error(scrub((error as Error).message, url)),
      });
    }
    const starting = (async () => {
      await limiter.client.connect();
      limiter.sha = await limiter.client.scriptLoad(SCRIPT);
    })();
    starting.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<TimedOut>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, TIMED_OUT);
    });
    let message: string;
    let cause: string | null;
    try {
      if ((await Promise.race([starting, expired])) !== TIMED_OUT) {
        limiter.started = true;
        return limiter;
      }
      message = `Redis at ${where} did not answer within ${timeoutMs / 1000} s`;
      cause = limiter.lastError;
    } catch (error) {
      message = `Redis at ${where} could not be set up`;
      cause = (error as Error).message;
    } finally {
      clearTimeout(timer);
    }
    // The client would retry for ever: stop it, so that a failed start can release what it opened and exit.
    limiter.closed = true;
    limiter.client.destroy();
    await limiter.fallback.close();
    throw new ApiError("service_unavailable", message, cause ? { cause: new Error(scrub(cause, url)) } : {});
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    if (this.outage === null) {
      try {
        const reply = await this.deadline.race(this.count(`quarry:rl:${key}`, windowMs));
        if (reply !== TIMED_OUT) return decide(reply[0], limit, reply[1]);
        this.unavailable(`no answer within ${this.deadline.ms} ms`);
      } catch (err) {
        this.unavailable((err as Error).message);
      }
    }
    this.countedInMemory();
    return this.fallback.hit(key, limit, windowMs);
  }

  /** Run the script: [count, ms until the window resets]. */
  private async count(redisKey: string, windowMs: number): Promise<[number, number]> {
    let reply: unknown;
    try {
      reply = await this.client.evalSha(this.sha!, { keys: [redisKey], arguments: [String(windowMs)] });
    } catch (err) {
      if (!String((err as Error).message).includes("NOSCRIPT")) throw err;
      reply = await this.client.eval(SCRIPT, { keys: [redisKey], arguments: [String(windowMs)] });
    }
    const [count, ttl] = reply as [number, number];
    return [Number(count), Number(ttl)];
  }

  /** A command failed or timed out, or the connection dropped: one line when the outage starts. */
  private unavailable(error: string): void {
    if (this.outage !== null) {
      this.outage.error = error;
      return;
    }
    const now = Date.now();
    this.outage = { since: now, calls: 0, lastLineAt: now, error };
    this.nextProbeAt = now + REDIS_PROBE_INTERVAL_MS;
    this.logger?.warn(
      { redis: this.where, err: error },
      "rate limiter: Redis unavailable; each instance counts requests in its own memory until Redis is back",
    );
  }

  /** A call counted in memory: a reminder line at most every REDIS_OUTAGE_REMINDER_MS; check Redis now and then. */
  private countedInMemory(): void {
    const outage = this.outage;
    if (outage === null) return;
    outage.calls++;
    const now = Date.now();
    if (now - outage.lastLineAt >= REDIS_OUTAGE_REMINDER_MS) {
      outage.lastLineAt = now;
      this.logger?.warn(
        { redis: this.where, err: outage.error, downMs: now - outage.since, callsInMemory: outage.calls },
        "rate limiter: Redis still unavailable; counting requests in memory",
      );
    }
    if (now >= this.nextProbeAt) this.probe(false);
  }

  /** In the background: run the script on the probe key; Redis is back once it answers in time. */
  private probe(force: boolean): void {
    if ((this.probing && !force) || this.closed) return;
    this.probing = true;
    this.nextProbeAt = Date.now() + REDIS_PROBE_INTERVAL_MS;
    this.deadline
      .race(this.count(PROBE_KEY, REDIS_PROBE_INTERVAL_MS))
      .then(
        (reply) => {
          if (reply === TIMED_OUT) this.unavailable(`no answer within ${this.deadline.ms} ms`);
          else this.available();
        },
        (err: Error) => this.unavailable(err.message),
      )
      .catch(() => undefined)
      .finally(() => {
        this.probing = false;
      });
  }

  private available(): void {
    const outage = this.outage;
    if (outage === null || this.closed) return;
    this.outage = null;
    this.logger?.warn(
      { redis: this.where, downMs: Date.now() - outage.since, callsInMemory: outage.calls },
      "rate limiter: Redis is back; counting requests in Redis again",
    );
  }

  /** Liveness for the readiness probe, bounded like any command. */
  async ping(): Promise<void> {
    if ((await this.deadline.race(this.client.ping())) === TIMED_OUT) {
      throw new Error(`Redis did not answer within ${this.deadline.ms} ms`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fallback.close();
    if (!this.client.isOpen) return;
    // A graceful close waits for the commands in flight, which a stalled Redis never answers: it is
    // given as long as one command, then the connection is dropped.
    const closing = this.client.close().then(
      () => true,
      () => true,
    );
    if ((await this.deadline.race(closing)) === TIMED_OUT) this.client.destroy();
  }
}
