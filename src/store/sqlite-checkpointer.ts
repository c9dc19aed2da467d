/**
 * WAL checkpoints off the request path. With SQLite's automatic checkpoints, the commit that
 * crosses the threshold copies WAL pages into the database file and fsyncs it on the event loop,
 * which shows up as a latency spike on whatever request made that commit (worse as the file grows:
 * random ids spread the pages). Instead, the main connection disables automatic checkpoints and a
 * worker thread with its own connection runs PASSIVE checkpoints on a timer. PASSIVE never blocks
 * writers or readers; durability is unchanged (it comes from the WAL, not the checkpoint).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.modulePath);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch { /* the next tick tries again */ }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
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
export async function startCheckpointer(file: string, intervalMs = 500): Promise<Checkpointer> {
  const modulePath = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, intervalMs, modulePath } });
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
