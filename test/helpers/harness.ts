/**
 * End-to-end harness: a real Quarry app listening on loopback, pointed at the replay upstream,
 * on the embedded store (temp dir) or on PostgreSQL (a fresh schema) when DATABASE_URL is set,
 * with the Redis limiter when REDIS_URL is set. Calls go over real HTTP.
 */
import { demoHooks } from "../../src/demo/install.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { buildApp } from "../../src/app.ts";
import type { AppDeps, Services } from "../../src/services.ts";
import { ManualClock } from "../../src/clock.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { randomBase62 } from "../../src/ids.ts";
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from "../../src/limits/rate-limiter.ts";
import { type ReplayServer, startReplay } from "../../src/demo/replay/replay-server.ts";
import { replayEnvironment } from "../../src/demo/replay/replay-env.ts";
import { PostgresStore } from "../../src/store/postgres/store.ts";
import { SqliteStore } from "../../src/store/sqlite/store.ts";
import type { Store } from "../../src/store/types.ts";
import { RedisAnswerStore } from "../../src/upstream/answer-cache-redis.ts";
import { HttpUpstreamClient } from "../../src/upstream/client.ts";

export interface HarnessOptions {
  /** Extra environment for loadConfig (plans, TTL, keys…). Replay base URLs are set already. */
  env?: Record<string, string | undefined>;
  /** Use this store instead of a fresh one (two instances sharing one database). */
  store?: Store;
  /** Share a replay server between harnesses. */
  replay?: ReplayServer;
  /** Force the embedded store even when DATABASE_URL is set. */
  embedded?: boolean;
  sharpen?: AppDeps["sharpen"];
  clock?: ManualClock;
  /** Capabilities to serve instead of the registry (e.g. a copy with a short deadline). */
  registry?: AppDeps["registry"];
  /** Logger options for buildApp (e.g. a level and an in-memory stream); logging is off by default. */
  logger?: AppDeps["logger"];
  /** Use this rate limiter (e.g. a Redis limiter behind a TCP proxy); it is closed with the harness. */
  limiter?: RateLimiter;
  /** How OAuth client metadata documents are fetched (loopback documents served over https with a test CA). */
  clientMetadataFetch?: AppDeps["clientMetadataFetch"];
}

export interface Harness {
  app: FastifyInstance;
  /** The upstream client the app sends provider requests through (its pacing and breaker state). */
  upstream: HttpUpstreamClient;
  services: Services;
  config: Config;
  store: Store;
  replay: ReplayServer;
  limiter: RateLimiter;
  clock: ManualClock;
  url: string;
  /** A fresh account with one key; returns the key and account id. */
  account(planId?: string): Promise<{ key: string; accountId: string }>;
  call(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<HttpResult>;
  close(): Promise<void>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  body: any;
  text: string;
}

export const usePostgres = () => Boolean(process.env.DATABASE_URL);
export const useRedis = () => Boolean(process.env.REDIS_URL);

export async function openTestStore(embedded = false): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  if (usePostgres() && !embedded) {
    const schema = `t_${randomBase62(10).toLowerCase()}`;
    const store = await PostgresStore.open(process.env.DATABASE_URL!, { schema });
    await store.migrate();
    return {
      store,
      cleanup: async () => {
        await store.close();
        const admin = new pg.Client({ connectionString: process.env.DATABASE_URL! });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "quarry-test-"));
  const store = SqliteStore.open(join(dir, "quarry.db"));
  await store.migrate();
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const replay = options.replay ?? (await startReplay());
  // Quarry's answer cache is off unless a test turns it on (ANSWER_CACHE=on): most tests count the
  // provider calls and charges of calls they repeat. Its own tests: test/economics.e2e.test.ts.
  const env = { ...replayEnvironment(replay.url), ANSWER_CACHE: "off", ...options.env };
  const config = loadConfig(env);
  const opened = options.store ? null : await openTestStore(options.embedded);
  const store = options.store ?? opened!.store;
  const limiter: RateLimiter =
    options.limiter ?? (useRedis() ? await RedisRateLimiter.connect(process.env.REDIS_URL!) : new MemoryRateLimiter());
  // As runtime.ts does: the offline demo's hooks when QUARRY_DEMO=1, the replay's page route for the reader.
  const demo = demoHooks(config);
  const upstream = new HttpUpstreamClient(config, undefined, undefined, undefined, demo.answerScreen);
  const clock = options.clock ?? new ManualClock(Date.now());
  const answerStore = useRedis() && config.answerCache.enabled ? await RedisAnswerStore.connect(process.env.REDIS_URL!, {}) : undefined;
  const app = await buildApp({
    config,
    store,
    limiter,
    upstream,
    clock,
    ...(options.registry ? { registry: options.registry } : {}),
    logger: options.logger ?? false,
    ...(options.sharpen ? { sharpen: options.sharpen } : {}),
    ...(options.clientMetadataFetch ? { clientMetadataFetch: options.clientMetadataFetch } : {}),
    ...(answerStore ? { answerStore } : {}),
    ...demo.appDeps,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  const harness: Harness = {
    app,
    upstream,
    services: app.services,
    config,
    store,
    replay,
    limiter,
    clock,
    url,
    async account(planId) {
      const account = await app.services.accounts.createAccount(`test-${randomBase62(6)}`, planId);
      const { key } = await app.services.accounts.createKey(account.id);
      return { key, accountId: account.id };
    },
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { ...callOptions.headers };
      if (callOptions.key) headers.authorization = `Bearer ${callOptions.key}`;
      let body: string | undefined;
      if (callOptions.body !== undefined) {
        body = typeof callOptions.body === "string" ? callOptions.body : JSON.stringify(callOptions.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async close() {
      await app.close();
      await upstream.close();
      await limiter.close();
      if (opened) await opened.cleanup();
      if (!options.replay) await replay.close();
    },
  };
  return harness;
}
