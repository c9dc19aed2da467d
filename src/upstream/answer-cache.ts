/**
 * Quarry's cache of provider answers (issue 41): identical provider requests (same provider, same
 * request without secrets, same configured key) within the time to live their capability declares
 * are answered from here without a provider call, and the call is charged 0 credits (the engine
 * decides that: capabilities/framework/define.ts). Only answers the client accepted are stored
 * (checked against their declared response); provider errors never are.
 *
 * Two levels: this process's memory, bounded in entries and bytes (LRU), and, with REDIS_URL, Redis
 * shared by every instance of the deployment (answer-cache-redis.ts), so one provider call per time
 * to live serves the whole deployment. Concurrent identical requests in a process wait for one
 * provider call (single flight). A caller may ask for a fresh answer (REST `Cache-Control: no-cache`):
 * the provider is asked, and its answer replaces the stored one.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from "./types.ts";

/** An answer as stored: what rebuilds the response a mapper reads. */
export interface StoredAnswer {
  status: number;
  /** The content type and the replay's demo headers; nothing else of the provider's headers is kept. */
  headers: Record<string, string>;
  /** The body as text, or base64 for a bytes answer. */
  text: string;
  bytes?: true;
  /** When the provider answered (epoch ms). */
  at: number;
}

/** Where answers are kept: memory, or memory in front of Redis. Never throws: a cache that fails is a miss. */
export interface AnswerStore {
  get(key: string): Promise<StoredAnswer | undefined>;
  set(key: string, answer: StoredAnswer, ttlMs: number): Promise<void>;
  /** Entries and bytes held in this process (benchmarks, health). */
  size(): { entries: number; bytes: number };
  close(): Promise<void>;
}

/** Bounds of the memory level. */
export interface AnswerCacheBounds {
  maxEntries: number;
  maxBytes: number;
  /** An answer larger than this is not stored (a 30 MB XBRL instance is not worth a slot). */
  maxEntryBytes: number;
}

export const DEFAULT_ANSWER_BOUNDS: AnswerCacheBounds = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024, maxEntryBytes: 1024 * 1024 };

const sizeOf = (a: StoredAnswer) => a.text.length * 2 + 200;

export class MemoryAnswerStore implements AnswerStore {
  private readonly lru: LRUCache<string, StoredAnswer>;

  constructor(
    private readonly bounds: AnswerCacheBounds = DEFAULT_ANSWER_BOUNDS,
    now: () => number = Date.now,
  ) {
    this.lru = new LRUCache<string, StoredAnswer>({
      max: bounds.maxEntries,
      maxSize: bounds.maxBytes,
      sizeCalculation: sizeOf,
      ttlAutopurge: false,
      perf: { now },
    });
  }

  async get(key: string): Promise<StoredAnswer | undefined> {
    return this.lru.get(key);
  }

  async set(key: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    if (answer.text.length > this.bounds.maxEntryBytes || ttlMs <= 0) return;
    this.lru.set(key, answer, { ttl: ttlMs });
  }

  size() {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize };
  }

  async close(): Promise<void> {
    this.lru.clear();
  }
}

/** The request as the cache keys it: everything that shapes the provider's answer, and the configured key's identity, hashed. */
export function answerKey(req: UpstreamRequest, keyIdentity: string): string {
  const query = Object.entries(req.query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, String(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  const headers = Object.entries(req.headers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const shape = [req.provider, req.host ?? "default", req.method, req.path, query, headers, req.body ?? null, req.responseType ?? "json", keyIdentity];
  return createHash("sha256").update(JSON.stringify(shape)).digest("base64url");
}

/** Whether a request's answer may be shared: not a token request, not an operator-declared endpoint (Sharpen's models). */
export function cacheable(req: UpstreamRequest): boolean {
  return req.baseUrl === undefined && req.form === undefined;
}

/** What one call's requests found in the cache: counted by the call's cached client, read by the engine. */
export class CallCacheWatch {
  hits = 0;
  misses = 0;
  /** The oldest answer served from the cache, ms. */
  oldestMs = 0;
  /** The providers whose answers came from the cache. */
  readonly providers = new Set<string>();

  hit(provider: string, ageMs: number): void {
    this.hits += 1;
    this.providers.add(provider);
    this.oldestMs = Math.max(this.oldestMs, ageMs);
  }

  miss(): void {
    this.misses += 1;
  }

  /** Every provider request of the call was answered from the cache. */
  get allCached(): boolean {
    return this.hits > 0 && this.misses === 0;
  }
}

/** "12 s", "4 min", "1 h", "3 h", "1 day". */
export function describeAge(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60 || (min < 90 && min % 60 !== 0)) return `${min} min`;
  const h = Math.round(min / 60);
  return h % 24 === 0 ? `${h / 24} day${h === 24 ? "" : "s"}` : `${h} h`;
}

/** The cost basis's sentence on repeats (inspect), when the deployment caches answers: what an identical request costs. */
export function cacheSentence(ttlMs: number): string {
  if (ttlMs <= 0) return "";
  return ` An identical request within ${describeAge(ttlMs)} of one that reached the provider is answered from Quarry's cache for 0 credits (REST: \`Cache-Control: no-cache\` asks afresh).`;
}

/** The note of an answer served from the cache. */
export function cachedNote(watch: CallCacheWatch): string {
  return (
    `Answered from Quarry's cache of an identical provider request made ${describeAge(watch.oldestMs)} ago; no credits were charged. ` +
    "For a fresh answer (billed as usual), send the request again with the header `Cache-Control: no-cache` (REST) or " +
    'with `_meta: {"quarry/fresh": true}` on the tools/call (MCP).'
  );
}

function store(res: UpstreamResponse, at: number): StoredAnswer {
  const headers: Record<string, string> = {};
  for (const name of ["content-type", "x-replay-unheld"]) {
    const v = res.headers[name];
    if (typeof v === "string") headers[name] = v;
  }
  if (res.body instanceof Uint8Array) return { status: res.status, headers, text: Buffer.from(res.body).toString("base64"), bytes: true, at };
  return { status: res.status, headers, text: res.text ?? (typeof res.body === "string" ? res.body : JSON.stringify(res.body)), at };
}

function rebuild(req: UpstreamRequest, a: StoredAnswer, now: number): UpstreamResponse {
  const cached = { ageMs: Math.max(0, now - a.at) };
  if (a.bytes) {
    const buf = Buffer.from(a.text, "base64");
    return { status: a.status, headers: a.headers, body: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), cached };
  }
  if (req.responseType === "text") return { status: a.status, headers: a.headers, body: a.text, text: a.text, cached };
  return { status: a.status, headers: a.headers, body: JSON.parse(a.text) as unknown, text: a.text, cached };
}

/** The process's answer cache: its store, single flight, and per-call clients. */
export class AnswerCache {
  private readonly pending = new Map<string, Promise<{ res: UpstreamResponse; at: number }>>();

  constructor(
    readonly store: AnswerStore,
    /** The configured key of a provider, hashed into cache keys (another key is another cache). */
    private readonly keyIdentity: (provider: string) => string,
    /** The deployment's name for a key (deployments sharing one Redis keep their answers apart). */
    private readonly namespace: (key: string) => Promise<string> = async (key) => key,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * `client` as one call sees it: answers of requests made within `ttlMs` served from the cache
   * (counted in `watch`), others sent and stored; with `fresh`, every request is sent and stored.
   */
  client(client: UpstreamClient, ttlMs: number, watch: CallCacheWatch, fresh = false): UpstreamClient {
    const send = async (req: UpstreamRequest, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse> => {
      if (ttlMs <= 0 || !cacheable(req)) return client.send(req, signal, clientGone);
      const key = await this.namespace(`answers:${answerKey(req, this.keyIdentity(req.provider))}`);
      if (!fresh) {
        const stored = await this.store.get(key);
        if (stored !== undefined && this.now() - stored.at < ttlMs) {
          const res = rebuild(req, stored, this.now());
          watch.hit(req.provider, res.cached!.ageMs);
          return res;
        }
        // An identical request in flight: its answer serves this one too. If it fails (its own
        // deadline, its caller gone), this call asks for itself.
        const running = this.pending.get(key);
        if (running !== undefined) {
          const shared = await running.catch(() => undefined);
          if (shared !== undefined) {
            const age = Math.max(0, this.now() - shared.at);
            watch.hit(req.provider, age);
            return { ...shared.res, cached: { ageMs: age } };
          }
        }
      }
      const run = (async () => {
        const res = await client.send(req, signal, clientGone);
        const at = this.now();
        await this.store.set(key, store(res, at), ttlMs);
        return { res, at };
      })();
      if (!fresh) this.pending.set(key, run);
      try {
        const { res } = await run;
        watch.miss();
        return res;
      } finally {
        if (this.pending.get(key) === run) this.pending.delete(key);
      }
    };
    return {
      send: send as UpstreamClient["send"],
      hasKey: (provider) => client.hasKey(provider),
      close: () => client.close(),
    };
  }
}
