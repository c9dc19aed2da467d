/**
 * What a capability may keep between calls, handed to it through its context (never module
 * globals, so tests and instances do not share state by accident):
 * - a bounded cache of looked-up values (geocoding results, ticker tables, chapters), LRU by
 *   entry count with a time to live per entry, and one load at a time per key (callers asking
 *   for a key being loaded wait for that load instead of starting their own);
 * - loaded indexes (fitness.exercises' wger index): one value per name, loaded on first use and
 *   refreshed in the background after its refresh interval, the previous one served meanwhile and
 *   kept when a refresh fails.
 */
import { LRUCache } from "lru-cache";
import type { JsonValue } from "../../json.ts";

export interface CacheOptions {
  /** How long a value stays fresh. */
  ttlMs: number;
}

export interface BoundedCache {
  /** The cached value of `namespace`/`key`, else what `load` gives (cached unless it throws). */
  getOrLoad<T extends JsonValue | object>(namespace: string, key: string, options: CacheOptions, load: () => Promise<T>): Promise<T>;
  /** Drop everything (tests). */
  clear(): void;
}

export interface IndexOptions {
  /** A loaded index older than this is refreshed on its next use (in the background). */
  refreshMs: number;
  /**
   * After a failed refresh, the next one starts no sooner than this (default
   * `REFRESH_RETRY_MS`, at most `refreshMs`): a provider that is down is not asked again by every
   * search, each with its retries.
   */
  retryAfterFailureMs?: number;
}

/** After a failed background refresh, the next use waits this long before trying again. */
export const REFRESH_RETRY_MS = 60_000;

export interface Indexes {
  /**
   * The index `name`: loaded by `load` on first use (callers wait), then served from memory; once
   * older than `refreshMs`, the next use starts a background refresh and is served the current one.
   * A failed first load rejects (the caller's request fails); a failed refresh keeps the old index,
   * and the next refresh waits `retryAfterFailureMs`.
   */
  get<T extends object>(name: string, options: IndexOptions, load: () => Promise<T>): Promise<T>;
  /** When each loaded index was loaded (epoch ms), for health and tests. */
  loadedAt(name: string): number | undefined;
  /**
   * Resolves once no load of `name` is running (at once when none is), whatever its outcome: how a
   * caller (a test, a shutdown) knows a background refresh has finished without timing it.
   */
  settled(name: string): Promise<void>;
}

/** Entries of all namespaces together. */
export const DEFAULT_CACHE_ENTRIES = 10_000;

export function createBoundedCache(maxEntries = DEFAULT_CACHE_ENTRIES, now: () => number = Date.now): BoundedCache {
  const lru = new LRUCache<string, { value: object | JsonValue; expires: number }>({ max: maxEntries });
  const loading = new Map<string, Promise<unknown>>();
  return {
    async getOrLoad(namespace, key, options, load) {
      const id = `${namespace}\u0000${key}`;
      const hit = lru.get(id);
      if (hit !== undefined && hit.expires > now()) return hit.value as never;
      const pending = loading.get(id);
      if (pending !== undefined) return pending as never;
      const run = load()
        .then((value) => {
          if (value !== null && value !== undefined) lru.set(id, { value, expires: now() + options.ttlMs });
          return value;
        })
        .finally(() => loading.delete(id));
      loading.set(id, run);
      return run;
    },
    clear() {
      lru.clear();
    },
  };
}

export function createIndexes(now: () => number = Date.now, onRefreshError?: (name: string, err: unknown) => void): Indexes {
  const loaded = new Map<string, { value: object; at: number; failedAt?: number }>();
  const loading = new Map<string, Promise<object>>();
  const start = (name: string, load: () => Promise<object>): Promise<object> => {
    const pending = loading.get(name);
    if (pending !== undefined) return pending;
    const run = load()
      .then((value) => {
        loaded.set(name, { value, at: now() });
        return value;
      })
      .finally(() => loading.delete(name));
    loading.set(name, run);
    return run;
  };
  return {
    async get(name, options, load) {
      const current = loaded.get(name);
      if (current === undefined) return (await start(name, load)) as never;
      const at = now();
      const retryMs = Math.min(options.retryAfterFailureMs ?? REFRESH_RETRY_MS, options.refreshMs);
      const due = at - current.at >= options.refreshMs && (current.failedAt === undefined || at - current.failedAt >= retryMs);
      if (due && !loading.has(name)) {
        start(name, load).catch((err: unknown) => {
          current.failedAt = now();
          onRefreshError?.(name, err);
        });
      }
      return current.value as never;
    },
    loadedAt(name) {
      return loaded.get(name)?.at;
    },
    async settled(name) {
      for (let pending = loading.get(name); pending !== undefined; pending = loading.get(name)) {
        await pending.then(
          () => undefined,
          () => undefined,
        );
      }
    },
  };
}
