/**
 * Starting and stopping a whole Quarry process: config → store → limiter → upstream client →
 * app → listen, plus the background jobs (expired-session sweep, crash-left reservations) and a
 * graceful drain on SIGTERM. Used by `npm start`, the demo and the process-level tests.
 */
import { demoHooks } from "./demo/install.ts";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { buildApp } from "./app.ts";
import { type Config, loadConfig } from "./config.ts";
import {
  type LimiterLogger,
  MemoryRateLimiter,
  type RateLimiter,
  RedisRateLimiter,
} from "./limits/rate-limiter.ts";
import { openStore } from "./store/open-store.ts";
import type { LostCallReport } from "./store/postgres/store.ts";
import type { Store } from "./store/types.ts";
import { DEFAULT_ANSWER_BOUNDS } from "./upstream/answer-cache.ts";
import { RedisAnswerStore } from "./upstream/answer-cache-redis.ts";
import { HttpUpstreamClient } from "./upstream/client.ts";

/** Reservations older than this are taken as left by a crash (longest deadline: Sharpen's 60 s). */
const STALE_RESERVATION_MS = 2 * 60 * 1000;

export interface RunningQuarry {
  app: FastifyInstance;
  config: Config;
  store: Store;
  url: string;
  /** Key created on first start with an empty store (printed once), else null. */
  firstKey: string | null;
  stop(): Promise<void>;
}

export async function startQuarry(env: Record<string, string | undefined> = process.env): Promise<RunningQuarry> {
  const config = loadConfig(env);
  // The app's logger exists only once the store is open; reports on calls an earlier process left
  // in doubt (settled from migrate() on) and the rate limiter's lines wait for it.
  let log: FastifyBaseLogger | undefined;
  const early: LostCallReport[] = [];
  const earlyLimiterLines: [object, string][] = [];
  const limiterLog: LimiterLogger = {
    warn: (obj, msg) => {
      if (!log) earlyLimiterLines.push([obj, msg]);
      else log.warn(obj, msg);
    },
  };
  const logLostCall = (report: LostCallReport) => {
    if (!log) early.push(report);
    else if (report.outcome === "unresolved")
      log.error(report, "a call answered 503 (outcome unknown) could not be checked");
    else log.warn(report, `a call answered 503 (outcome unknown) was ${report.outcome}`);
  };
  const store = await openStore({
    dataDir: config.dataDir,
    keyCacheTtlMs: config.keyCacheTtlMs,
    exclusive: true,
    onLostCall: logLostCall,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
  });
  let limiter: RateLimiter | undefined;
  let upstream: HttpUpstreamClient | undefined;
  let app: FastifyInstance | undefined;
  try {
    // Bounded (5 s): a Redis that is not there fails the start with one line (src/server.ts).
    limiter = config.redisUrl
      ? await RedisRateLimiter.connect(config.redisUrl, { logger: limiterLog })
      : new MemoryRateLimiter();
    // The offline demo (QUARRY_DEMO=1, npm run demo) installs its hooks here (src/demo/install.ts);
    // no other module asks whether it runs in a demo.
    upstream = new HttpUpstreamClient(config, undefined, undefined, undefined, demoHooks(config).answerScreen);
    return await serve(config, store, limiter, upstream, (built) => {
      app = built;
      log = built.log;
      for (const report of early.splice(0)) logLostCall(report);
      for (const [obj, msg] of earlyLimiterLines.splice(0)) limiterLog.warn(obj, msg);
    });
  } catch (error) {
    // Whatever started before the failure (a taken port; a Redis that is not there closes its own
    // client) is closed again, so that the process can exit and the data directory's lock is
    // released for the next try.
    await app?.close().catch(() => undefined);
    await upstream?.close().catch(() => undefined);
    await limiter?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** Build the app on the opened store, listen, and return the running service. */
async function serve(
  config: Config,
  store: Store,
  limiter: RateLimiter,
  upstream: HttpUpstreamClient,
  onBuilt: (app: FastifyInstance) => void,
): Promise<RunningQuarry> {
  // With Redis, provider answers are shared by every instance (answer-cache-redis.ts); a cache that
  // cannot connect leaves each instance its own memory, never the start.
  const answerStore =
    config.redisUrl && config.answerCache.enabled
      ? await RedisAnswerStore.connect(config.redisUrl, {
          bounds: { ...DEFAULT_ANSWER_BOUNDS, maxEntries: config.answerCache.maxEntries, maxBytes: config.answerCache.maxBytes },
        }).catch(() => undefined)
      : undefined;
  const app = await buildApp({
    config,
    store,
    limiter,
    upstream,
    ...(answerStore === undefined ? {} : { answerStore }),
    ...(config.redisUrl ? { readinessProbes: { redis: () => limiter.ping() } } : {}),
    ...demoHooks(config).appDeps,
  });
  onBuilt(app);

  // The embedded store has one process: every reservation it holds was left by a crash.
  // A shared PostgreSQL may hold other instances' in-flight reservations: only release old ones.
  const released = await store.releaseReservationsOlderThan(store.kind === "sqlite" ? 0 : STALE_RESERVATION_MS);
  if (released > 0) app.log.warn({ released }, "released reservations left by an earlier crash");

  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;

  // After listening: a start that fails on its port must not create the first account and lose
  // the key it would have printed.
  let firstKey: string | null = null;
  if ((await store.countAccounts()) === 0) {
    const account = await app.services.accounts.createAccount("local");
    firstKey = (await app.services.accounts.createKey(account.id, "first key")).key;
  }

  const sweep = setInterval(async () => {
    try {
      const before = Date.now() - config.sessionSweepGraceSeconds * 1000;
      // Small batches with a turn of the event loop between them, so requests interleave with the
      // sweep; at most 50 batches a tick keeps one tick bounded.
      let swept = 0;
      for (let i = 0; i < 50; i++) {
        const n = await store.sweepExpired(before, config.sweepBatchSize);
        swept += n;
        if (n < config.sweepBatchSize) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (swept > 0) app.log.info({ swept }, "swept expired sessions");
      // Expired dashboard sessions, OAuth codes and tokens (one bounded batch of each a tick).
      const people = await store.sweepPeople(Date.now(), config.sweepBatchSize);
      if (people > 0) app.log.info({ swept: people }, "swept expired dashboard sessions and OAuth codes and tokens");
      if (store.kind === "postgres") await store.releaseReservationsOlderThan(STALE_RESERVATION_MS);
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, "sweep failed; will retry");
    }
  }, config.sweepIntervalSeconds * 1000);
  sweep.unref();

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      clearInterval(sweep);
      // Each connection closes after its latest answer, never before (http/connections.ts).
      app.connections.drain();
      // Drain in-flight requests within the grace period, then close connections regardless.
      const graceOver = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          app.server.closeAllConnections();
          resolve();
        }, config.shutdownGraceMs);
        timer.unref();
      });
      await app.close();
      // The agent's close waits for calls still on their provider (hung past the grace): not longer
      // than the grace, so the exit stays bounded; what they reserved is released on the next start.
      await Promise.race([upstream.close().catch(() => undefined), graceOver]);
      await limiter.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    })();
    return stopping;
  };
  return { app, config, store, url, firstKey, stop };
}
