/**
 * `npm start` as a real process: on an empty embedded store it creates a local free account, prints
 * its key once with a curl example, serves with that key, prints no key on the next start, and
 * exits cleanly on SIGTERM.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const dataDir = mkdtempSync(join(tmpdir(), "quarry-start-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

function start(
  options: { dir?: string; port?: number } = {},
): { child: ChildProcess; output: () => string; ready: Promise<string> } {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: options.dir ?? dataDir,
    PORT: String(options.port ?? 0),
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      // Wait for the whole first-start block (it ends with the curl line) when it is printed.
      if (m && (!out.includes("First start") || out.includes("curl"))) resolve(m[1]!);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { child, output: () => out, ready };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

test("first start prints a working key once; SIGTERM exits 0", async () => {
  const first = start();
  const url = await first.ready;
  const key = /API key \(shown only this once\): (qk_live_[0-9A-Za-z]{32})/.exec(first.output())?.[1];
  assert.ok(key, first.output());
  assert.match(first.output(), /curl -s http:\/\/127\.0\.0\.1:\d+\/v1\/catalog -H "Authorization: Bearer qk_live_/);
  const res = await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  const account = (await res.json()) as { plan: { id: string }; credits: { cap: number } };
  assert.equal(account.plan.id, "free");
  assert.equal(account.credits.cap, 1000);
  assert.equal(await stop(first.child), 0);

  const second = start();
  await second.ready;
  assert.doesNotMatch(second.output(), /qk_live_/);
  // A restart says how to get a key, naming the one account.
  assert.match(second.output(), /a key is shown only when it is created[^\n]*\n {2}npm run cli -- keys create acct_[0-9A-Za-z]+/);
  assert.equal(await stop(second.child), 0);
});

test("a second server on the same DATA_DIR refuses to start, with one clear line, and the first keeps serving", async () => {
  const first = start();
  const url = await first.ready;
  const second = start();
  const refused = await second.ready.then(
    () => null,
    (error: Error) => error.message,
  );
  assert.ok(refused, "the second server must not start");
  assert.match(refused, /exited 1/);
  assert.match(refused, /Quarry could not start: Another Quarry server is already serving .*quarry\.db/);
  assert.doesNotMatch(refused, /\n\s+at /, "a message, not a stack trace");
  assert.equal((await fetch(`${url}/health/live`)).status, 200);
  assert.equal(await stop(first.child), 0);
  // Once the first is gone the lock is free again.
  const third = start();
  await third.ready;
  assert.equal(await stop(third.child), 0);
});

test("a start on a taken port exits 1 with one line, releases the data directory and keeps the first key for the next start", async () => {
  const dir = mkdtempSync(join(tmpdir(), "quarry-port-"));
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  try {
    const port = (blocker.address() as AddressInfo).port;
    const refused = await start({ dir, port }).ready.then(
      () => null,
      (error: Error) => error.message,
    );
    assert.ok(refused, "the server must not start on a taken port");
    assert.match(refused, /exited 1/);
    assert.match(refused, /Quarry could not start: .*EADDRINUSE.* \(set PORT/);
    assert.doesNotMatch(refused, /\n\s+at /, "a message, not a stack trace");
    // The failed start neither kept the lock nor created the first account: the next start prints its key.
    const next = start({ dir });
    await next.ready;
    assert.match(next.output(), /API key \(shown only this once\): qk_live_/);
    assert.equal(await stop(next.child), 0);
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
