/**
 * Rate limiter faults: Redis stops answering (its connection stays open, nothing comes back), refuses
 * connections, or is not there at start. Each authenticated call is still answered within a bound,
 * counted in this instance's memory; one warning says Redis is unavailable and one that it is back;
 * and a server started against a Redis that is not there exits 1 with one line naming the URL
 * without its password, releasing what it opened.
 *
 * A TCP proxy (test/helpers/tcp-proxy.ts) stands between the limiter and the shared Redis, so the
 * outage is this test's own; those tests run only with REDIS_URL. The start-up tests need no Redis.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createClient } from "redis";
import { ApiError } from "../src/errors.ts";
import { REDIS_COMMAND_TIMEOUT_MS, RedisRateLimiter } from "../src/limits/rate-limiter.ts";
import { startQuarry } from "../src/runtime.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { type Exit, spawnQuarry, startQuarryProcess } from "./helpers/process.ts";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy.ts";

const REDIS_URL = process.env.REDIS_URL;
/** A call must be answered within this, Redis answering or not. */
const CALL_BOUND_MS = 1000;
/** A start against a Redis that is not there must have exited within this (connect bound 5 s + boot). */
const START_BOUND_MS = 12_000;
const LIMIT = 100;
const PLANS = JSON.stringify([
  { id: "rl", name: "RL", credits: 1000, period: "once", rateLimitPerMinute: LIMIT, capabilities: "*" },
]);
const PASSWORD = "s3cret-Pa55word";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => boolean, timeoutMs = 6000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Where REDIS_URL points, and the same URL (credentials, database) through a proxy port. */
function redisTarget(): { host: string; port: number } {
  const url = new URL(REDIS_URL!);
  return { host: url.hostname || "127.0.0.1", port: Number(url.port || 6379) };
}
function throughProxy(port: number): string {
  const url = new URL(REDIS_URL!);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return url.toString();
}

interface Line {
  msg: string;
  [field: string]: unknown;
}
function captureLogger(lines: Line[]) {
  return { warn: (obj: object, msg: string) => lines.push({ ...obj, msg }) };
}

interface Timed {
  status: number;
  ms: number;
  remaining: number;
}
/** GET /v1/account (authenticated, no upstream call), timed; never waits past 5 s. */
async function timedCall(url: string, key: string): Promise<Timed> {
  const start = Date.now();
  try {
    const res = await fetch(`${url}/v1/account`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - start, remaining: Number(res.headers.get("ratelimit-remaining")) };
  } catch {
    return { status: 0, ms: Date.now() - start, remaining: Number.NaN };
  }
}

describe("Redis limiter behind a proxy", { skip: REDIS_URL ? false : "REDIS_URL not set" }, () => {
  let proxy: TcpProxy;
  let harness: Harness;
  let direct: ReturnType<typeof createClient>;
  const lines: Line[] = [];

  before(async () => {
    proxy = await startTcpProxy(redisTarget());
    const limiter = await RedisRateLimiter.connect(throughProxy(proxy.port), { logger: captureLogger(lines) });
    harness = await startHarness({ limiter, env: { QUARRY_PLANS: PLANS } });
    direct = createClient({ url: REDIS_URL! });
    direct.on("error", () => undefined);
    await direct.connect();
  });
  after(async () => {
    await proxy.restore();
    await harness?.close();
    await proxy?.close();
    direct?.destroy();
  });

  /** A fresh key (so a fresh Redis counter) and what Redis holds for it. */
  async function freshKey(): Promise<{ key: string; redisCount: () => Promise<number> }> {
    const { key } = await harness.account("rl");
    const { keyId } = await harness.services.accounts.authenticate(key);
    return { key, redisCount: async () => Number((await direct.get(`quarry:rl:${keyId}`)) ?? 0) };
  }

  test("Redis stops answering: calls answered within 1 s and counted in memory, one warning; back in Redis once it answers", async () => {
    await proxy.restore();
    lines.length = 0;
    const { key, redisCount } = await freshKey();
    assert.equal((await timedCall(harness.url, key)).remaining, LIMIT - 1);
    assert.equal((await timedCall(harness.url, key)).remaining, LIMIT - 2);
    assert.equal(await redisCount(), 2);
    assert.equal(lines.length, 0, JSON.stringify(lines));

    await proxy.cut("freeze");
    const first = await timedCall(harness.url, key);
    assert.equal(first.status, 200);
    assert.ok(first.ms < CALL_BOUND_MS, `answered in ${first.ms} ms`);
    assert.ok(first.ms >= REDIS_COMMAND_TIMEOUT_MS - 20, `waited for Redis first (${first.ms} ms)`);
    // Counted in this instance's memory: its first call there.
    assert.equal(first.remaining, LIMIT - 1);
    // Once Redis is known to be away, calls do not wait for it.
    const more = await Promise.all(Array.from({ length: 10 }, () => timedCall(harness.url, key)));
    for (const call of more) {
      assert.equal(call.status, 200);
      assert.ok(call.ms < CALL_BOUND_MS, `answered in ${call.ms} ms`);
    }
    assert.deepEqual(
      more.map((c) => c.remaining).sort((a, b) => b - a),
      Array.from({ length: 10 }, (_, i) => LIMIT - 2 - i),
    );
    const start = Date.now();
    await assert.rejects(harness.limiter.ping());
    assert.ok(Date.now() - start < CALL_BOUND_MS, "the readiness probe is bounded too");
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.match(lines[0]!.msg, /Redis unavailable/);
    assert.doesNotMatch(JSON.stringify(lines), new RegExp(PASSWORD));

    await proxy.restore();
    await waitFor("the 'back' line", () => lines.length >= 2);
    assert.match(lines[1]!.msg, /Redis is back/);
    const back = await timedCall(harness.url, key);
    // Counted in Redis again: the two calls before the outage and this one.
    assert.equal(back.remaining, LIMIT - 3);
    assert.equal(await redisCount(), 3);
    assert.equal(lines.length, 2, JSON.stringify(lines));
  });

  test("Redis refuses connections: calls fast and counted in memory, one warning for the outage; back in Redis once it is up", async () => {
    await proxy.restore();
    lines.length = 0;
    const { key, redisCount } = await freshKey();
    assert.equal((await timedCall(harness.url, key)).remaining, LIMIT - 1);

    await proxy.cut("refuse");
    const during: Timed[] = [];
    // Several reconnect attempts fail meanwhile (one every 200 ms–2 s): still one line.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      during.push(await timedCall(harness.url, key));
      await sleep(50);
    }
    for (const call of during) {
      assert.equal(call.status, 200);
      assert.ok(call.ms < CALL_BOUND_MS, `answered in ${call.ms} ms`);
    }
    assert.equal(during.at(-1)!.remaining, LIMIT - during.length, "counted in memory from the outage on");
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.match(lines[0]!.msg, /Redis unavailable/);

    await proxy.restore();
    await waitFor("the 'back' line", () => lines.length >= 2);
    assert.match(lines[1]!.msg, /Redis is back/);
    assert.equal((await timedCall(harness.url, key)).remaining, LIMIT - 2);
    assert.equal(await redisCount(), 2);
  });

  test("closing the limiter does not wait for a Redis that stopped answering", async () => {
    const own = await startTcpProxy(redisTarget());
    try {
      const limiter = await RedisRateLimiter.connect(throughProxy(own.port), { logger: captureLogger([]) });
      await own.cut("freeze");
      const decision = await limiter.hit(`test-close-${Date.now()}`, 5, 60_000);
      assert.equal(decision.remaining, 4);
      const start = Date.now();
      await limiter.close();
      assert.ok(Date.now() - start < CALL_BOUND_MS, `closed in ${Date.now() - start} ms`);
    } finally {
      await own.close();
    }
  });

  test("npm start logs the outage through the server's logger: one line when Redis goes, one when it is back", async () => {
    const own = await startTcpProxy(redisTarget());
    const dataDir = mkdtempSync(join(tmpdir(), "quarry-rl-"));
    try {
      const server = await startQuarryProcess({
        env: { REDIS_URL: throughProxy(own.port), DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      });
      try {
        assert.ok(server.key, "server.key");
        assert.equal((await timedCall(server.url, server.key)).status, 200);
        await own.cut("refuse");
        for (let i = 0; i < 5; i++) {
          const call = await timedCall(server.url, server.key);
          assert.equal(call.status, 200);
          assert.ok(call.ms < CALL_BOUND_MS, `answered in ${call.ms} ms`);
        }
        const limiterLines = () => server.output().split("\n").filter((l) => /rate limiter/.test(l));
        assert.equal(limiterLines().length, 1, server.output());
        assert.match(limiterLines()[0]!, /"level":40.*Redis unavailable/);
        await own.restore();
        await waitFor("the 'back' line", () => limiterLines().length >= 2);
        assert.match(limiterLines()[1]!, /Redis is back/);
        assert.equal((await server.kill("SIGTERM")).code, 0);
      } finally {
        await server.kill("SIGKILL");
      }
    } finally {
      await own.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a start against a Redis that is not there", () => {
  test("npm start exits 1 within a few seconds with one line naming the URL without its password (refused, black-holed)", async () => {
    const refusedPort = await closedPort();
    const hole = await startTcpProxy({ host: "127.0.0.1", port: refusedPort });
    await hole.cut("blackhole");
    const dirs = [mkdtempSync(join(tmpdir(), "quarry-rl-")), mkdtempSync(join(tmpdir(), "quarry-rl-"))];
    try {
      const cases = [
        { port: refusedPort, dir: dirs[0]! },
        { port: hole.port, dir: dirs[1]! },
      ];
      const outcomes = await Promise.all(
        cases.map(async ({ port, dir }) => {
          const redisUrl = `redis://quarry:${PASSWORD}@127.0.0.1:${port}`;
          const start = Date.now();
          const child = spawnQuarry({ env: { REDIS_URL: redisUrl, DATA_DIR: dir } });
          const exit = await Promise.race([child.exited, sleep(START_BOUND_MS).then(() => null)]);
          if (exit === null) child.child.kill("SIGKILL");
          return { port, exit: exit as Exit | null, ms: Date.now() - start, output: child.output() };
        }),
      );
      for (const { port, exit, ms, output } of outcomes) {
        assert.ok(exit, `still running after ${START_BOUND_MS} ms:\n${output}`);
        assert.equal(exit.code, 1, output);
        const lines = output.trim().split("\n");
        assert.equal(lines.length, 1, output);
        assert.match(
          lines[0]!,
          new RegExp(`^Quarry could not start: Redis at redis://quarry:\\*\\*\\*@127\\.0\\.0\\.1:${port} `),
        );
        assert.doesNotMatch(output, new RegExp(PASSWORD));
        assert.ok(ms < START_BOUND_MS, `exited after ${ms} ms`);
      }
    } finally {
      await hole.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  test("startQuarry rejects within the connect bound and releases the store it opened", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "quarry-rl-"));
    const env = { DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent" };
    try {
      const start = Date.now();
      const starting = startQuarry({ ...env, REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${await closedPort()}` });
      const error = await Promise.race([
        starting.then(
          (running) => {
            void running.stop();
            return "started";
          },
          (e: unknown) => e,
        ),
        sleep(START_BOUND_MS).then(() => "still starting"),
      ]);
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, "service_unavailable");
      assert.doesNotMatch(`${error.message} ${(error.cause as Error | undefined)?.message}`, new RegExp(PASSWORD));
      assert.ok(Date.now() - start < 8000, `rejected after ${Date.now() - start} ms`);
      // The data directory's lock was released: the next start on it works.
      const next = await startQuarry(env);
      assert.ok(next.firstKey, "the failed start created no account");
      await next.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
