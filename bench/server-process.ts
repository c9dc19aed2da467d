/**
 * Driver side of the server process: fork bench/server-child.ts under `node --import tsx` with its
 * own temporary data directory, wait until it listens, ask it for RSS or a sweep batch, stop it,
 * and remove the directory. Every started process and directory is cleaned up on exit or Ctrl-C.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildMessage, ChildReply, ChildRequest, MemorySample, ReadyMessage } from "./protocol.ts";

const CHILD = fileURLToPath(new URL("./server-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STOP_TIMEOUT_MS = 15_000;

/** A request without its id (the id is assigned when sent). */
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
type RequestBody = WithoutId<ChildRequest>;

export interface ServerProcess extends ReadyMessage {
  pid: number;
  dataDir: string;
  /** Resident set size and heap of the server process, in bytes; `gc` collects garbage first. */
  memory(gc: boolean): Promise<MemorySample>;
  /** Run one `store.sweepExpired(before, limit)` in the server process and time it there. */
  sweep(before: number, limit: number): Promise<{ ms: number; deleted: number }>;
  stop(): Promise<void>;
}

const live = new Set<{ child: ChildProcess; dataDir: string }>();

function cleanupNow(): void {
  for (const entry of live) {
    if (entry.child.exitCode === null && entry.child.signalCode === null) entry.child.kill("SIGKILL");
    rmSync(entry.dataDir, { recursive: true, force: true });
  }
  live.clear();
}

let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", cleanupNow);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      cleanupNow();
      process.exit(130);
    });
  }
}

/** The V8 flags `npm start` runs with (package.json), so the bench measures what ships. */
const START_FLAGS: string[] = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((token) => token.startsWith("--max-"));

export async function startServerProcess(
  options: { cpuProfDir?: string | undefined; dataParent?: string | undefined } = {},
): Promise<ServerProcess> {
  installExitHooks();
  const dataDir = mkdtempSync(join(options.dataParent ?? tmpdir(), "quarry-bench-"));
  const child = fork(CHILD, [], {
    cwd: ROOT,
    execArgv: [
      "--import",
      "tsx",
      "--expose-gc",
      ...START_FLAGS,
      ...(options.cpuProfDir ? ["--cpu-prof", "--cpu-prof-dir", resolvePath(options.cpuProfDir)] : []),
    ],
    env: { ...process.env, BENCH_DATA_DIR: dataDir, NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const entry = { child, dataDir };
  live.add(entry);

  let nextId = 1;
  const pending = new Map<number, (reply: ChildReply) => void>();
  const ready = new Promise<ReadyMessage>((resolve, reject) => {
    child.on("message", (message: ChildMessage) => {
      if (message.type === "ready") return resolve(message);
      const settle = pending.get(message.id);
      pending.delete(message.id);
      settle?.(message);
    });
    child.once("exit", (code, signal) => {
      reject(new Error(`bench server exited before it was ready (code ${code}, signal ${signal})`));
      for (const settle of pending.values()) settle({ id: 0, type: "error", message: "bench server exited" });
      pending.clear();
    });
  });

  const ask = (body: RequestBody): Promise<ChildReply> =>
    new Promise((resolve, reject) => {
      if (!child.connected) return reject(new Error("bench server is not running"));
      const id = nextId++;
      pending.set(id, (reply) =>
        reply.type === "error" ? reject(new Error(reply.message)) : resolve(reply),
      );
      child.send({ ...body, id } as ChildRequest);
    });

  let info: ReadyMessage;
  try {
    info = await ready;
  } catch (err) {
    cleanupNow();
    throw err;
  }

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

  return {
    ...info,
    pid: child.pid ?? -1,
    dataDir,
    async memory(gc) {
      const reply = await ask({ type: "rss", gc });
      if (reply.type !== "rss") throw new Error(`unexpected reply ${reply.type}`);
      return reply.memory;
    },
    async sweep(before, limit) {
      const reply = await ask({ type: "sweep", before, limit });
      if (reply.type !== "sweep") throw new Error(`unexpected reply ${reply.type}`);
      return { ms: reply.ms, deleted: reply.deleted };
    },
    async stop() {
      try {
        if (child.connected) await ask({ type: "stop" });
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        rmSync(dataDir, { recursive: true, force: true });
        live.delete(entry);
      }
    },
  };
}
