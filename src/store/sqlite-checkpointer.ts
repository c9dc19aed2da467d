/**
 * WAL checkpoints off the request path. With SQLite's automatic checkpoints, the commit that
 * crosses the threshold copies WAL pages into the database file and fsyncs it on the event loop,
 * which shows up as a latency spike on whatever request made that commit (worse as the file grows:
 * random ids spread the pages). Instead, the main connection disables automatic checkpoints and a
 * worker thread with its own connection runs PASSIVE checkpoints on a timer. PASSIVE never blocks
 * writers or readers; past 4096 frames (16 MiB) a TRUNCATE checkpoint bounds the WAL. Durability is
 * unchanged (it comes from the WAL, not the checkpoint).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.modulePath);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
// Prepared once: db.pragma() prepares a new statement per call, and this isolate allocates so little
// that their native memory would wait a long time for a garbage collection.
const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const truncate = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)");
const timer = setInterval(() => {
  try {
    // PASSIVE copies what it can without waiting for anyone. Under a steady stream of commits it
    // never catches up completely, and SQLite only rewinds a WAL that was checkpointed completely,
    // so past a size the WAL is checkpointed with TRUNCATE: it waits (busy timeout) for the
    // writer's current transaction, copies the rest and empties the file. Writers meanwhile see
    // SQLITE_BUSY and retry without blocking the event loop (SqliteStore.guard).
    const { log } = passive.get();
    if (log > workerData.truncateFrames) truncate.get();
  } catch { /* the next tick tries again */ }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  try { truncate.get(); } catch {}
  db.close();
  parentPort.postMessage("stopped");
  parentPort.close();
});
parentPort.postMessage("ready");
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Start checkpointing `file` every `intervalMs`; resolves once the worker has its connection. */
export async function startCheckpointer(file: string, intervalMs = 500, truncateFrames = 4096): Promise<Checkpointer> {
  const modulePath = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, intervalMs, truncateFrames, modulePath } });
  // Referenced while starting and stopping (someone awaits it), unreferenced in between so an
  // idle checkpointer never keeps the process alive.
  await new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  worker.unref();
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        worker.ref();
        worker.once("exit", () => resolve());
        worker.postMessage("stop");
        // A worker that does not answer (it should) is ended after a bound.
        setTimeout(() => void worker.terminate(), 2000).unref();
      });
      return stopped;
    },
  };
}
