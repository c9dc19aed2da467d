/**
 * Per-key request rate limits: a window that starts at a key's first request and lasts
 * `windowMs`. In memory for one instance, or in Redis (one atomic script) so several instances
 * share one limit. If Redis fails, the limiter falls back to memory for that call and logs it:
 * a limiter outage must not take the whole service down (documented in docs/architecture.md).
 */
import { createClient } from "redis";

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

export class RedisRateLimiter implements RateLimiter {
  private readonly client: ReturnType<typeof createClient>;
  private readonly fallback = new MemoryRateLimiter();
  private sha: string | null = null;

  private constructor(url: string, private readonly logger?: LimiterLogger) {
    this.client = createClient({
      url,
      // Fail fast while disconnected instead of queueing commands behind a dead connection.
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
    });
    this.client.on("error", (err: Error) => this.logger?.warn({ err: err.message }, "redis error"));
  }

  static async connect(url: string, logger?: LimiterLogger): Promise<RedisRateLimiter> {
    const limiter = new RedisRateLimiter(url, logger);
    await limiter.client.connect();
    limiter.sha = await limiter.client.scriptLoad(SCRIPT);
    return limiter;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    try {
      const redisKey = `quarry:rl:${key}`;
      let reply: unknown;
      try {
        reply = await this.client.evalSha(this.sha!, { keys: [redisKey], arguments: [String(windowMs)] });
      } catch (err) {
        if (!String((err as Error).message).includes("NOSCRIPT")) throw err;
        reply = await this.client.eval(SCRIPT, { keys: [redisKey], arguments: [String(windowMs)] });
      }
      const [count, ttl] = reply as [number, number];
      return decide(Number(count), limit, Number(ttl));
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, "rate limiter falling back to memory");
      return this.fallback.hit(key, limit, windowMs);
    }
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    await this.fallback.close();
    if (this.client.isOpen) await this.client.quit();
  }
}
