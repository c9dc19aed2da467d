/**
 * The server process of the bench (started by server-process.ts with `node --import tsx`): the
 * replay upstream, the bare baseline route and Quarry on the embedded SQLite store in
 * BENCH_DATA_DIR, all with request logging off. Answers the driver's IPC requests (RSS, one
 * expiry sweep batch, stop). Keeping servers here and autocannon in the parent gives each its
 * own core on a 2-core machine instead of one event loop serving both.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { MemoryRateLimiter } from "../src/limits/rate-limiter.ts";
import { replayEnvironment } from "../src/demo/replay/replay-env.ts";
import { startReplay } from "../src/demo/replay/replay-server.ts";
import { embeddedDatabaseFile } from "../src/store/open-store.ts";
import { SqliteStore } from "../src/store/sqlite/store.ts";
import { HttpUpstreamClient } from "../src/upstream/client.ts";
import { buildBareApp } from "./bare-app.ts";
import { BENCH_PLAN, type ChildReply, type ChildRequest, type ReadyMessage } from "./protocol.ts";

const MCP_ROUTES = fileURLToPath(new URL("../src/mcp/mcp-routes.ts", import.meta.url));

function send(message: ReadyMessage | ChildReply): void {
  process.send?.(message);
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("server has no address");
  return `http://127.0.0.1:${address.port}`;
}

async function main(): Promise<void> {
  const dataDir = process.env.BENCH_DATA_DIR;
  if (!dataDir) throw new Error("BENCH_DATA_DIR is not set (run bench/run.ts)");
  if (!process.send) throw new Error("server-child.ts must be started with an IPC channel");

  // No request log: it is for tests, and at bench rates it kept every record long enough for V8 to
  // promote it (and, through it, other requests' objects): GC work on both sides that a remote
  // provider would not put in this process (docs/performance.md, "A request log in the upstream").
  const replay = await startReplay({ requestLog: 0 });
  const config = loadConfig({
    ...replayEnvironment(replay.url),
    DATA_DIR: dataDir,
    QUARRY_PLANS: JSON.stringify([BENCH_PLAN]),
    QUARRY_DEFAULT_PLAN: BENCH_PLAN.id,
    LOG_LEVEL: "silent",
  });
  const dbFile = embeddedDatabaseFile(dataDir);
  // As the server opens it (src/runtime.ts): exclusively, with its instance lock and in-memory holds.
  const store = SqliteStore.open(dbFile, { exclusive: true });
  await store.migrate();
  const limiter = new MemoryRateLimiter();
  const upstream = new HttpUpstreamClient(config);
  const app = await buildApp({ config, store, limiter, upstream, logger: false });
  const bare = await buildBareApp(replay.url);
  const gatewayUrl = await listen(app);
  const bareUrl = await listen(bare.app);

  const account = await app.services.accounts.createAccount("bench", BENCH_PLAN.id);
  const { key } = await app.services.accounts.createKey(account.id, "bench");

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      await app.close().catch(() => undefined);
      await bare.close().catch(() => undefined);
      await upstream.close().catch(() => undefined);
      await limiter.close().catch(() => undefined);
      await replay.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    })();
    return stopping;
  };

  // The driver went away (crash, Ctrl-C): close the database cleanly and leave.
  process.on("disconnect", () => {
    void stop().finally(() => process.exit(0));
  });

  process.on("message", (raw: ChildRequest) => {
    void (async () => {
      try {
        if (raw.type === "rss") {
          const rawRss = process.memoryUsage.rss();
          if (raw.gc) globalThis.gc?.();
          const { rss, heapUsed } = process.memoryUsage();
          send({ id: raw.id, type: "rss", memory: { rawRss, rss, heapUsed } });
        } else if (raw.type === "sweep") {
          const started = process.hrtime.bigint();
          const deleted = await store.sweepExpired(raw.before, raw.limit);
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          send({ id: raw.id, type: "sweep", ms, deleted });
        } else if (raw.type === "stop") {
          await stop();
          send({ id: raw.id, type: "stop" });
          process.disconnect();
        }
      } catch (err) {
        send({ id: raw.id, type: "error", message: (err as Error).message });
      }
    })();
  });

  send({
    type: "ready",
    gatewayUrl,
    bareUrl,
    replayUrl: replay.url,
    key,
    accountId: account.id,
    dbFile,
    storeKind: store.kind,
    mcp: existsSync(MCP_ROUTES),
  });
}

main().catch((err: unknown) => {
  console.error("bench server failed to start:", err);
  process.exit(1);
});
