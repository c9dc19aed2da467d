/**
 * The embedded store's writer thread (started by write-channel.ts). It owns the only
 * connection that writes the database file, so the event loop never runs a write transaction,
 * never waits for the write lock and never copies WAL pages. It starts the bulk checkpoint thread
 * and completes checkpoints itself between batches when the WAL has grown (see topUp()).
 *
 * Protocol on the transferred port: in `{ type: "ops", ops: [{ id, deadline, op }] }` and
 * `{ type: "stop" }`; out `{ type: "done", results: [{ id, ok, value | error }] }` and
 * `{ type: "ready" }`, `{ type: "stopped" }`. A batch is every op that has arrived when the thread is free.
 */
import { createRequire } from "node:module";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { isBusyCode } from "./errors.ts";
import { toWireError, type WireError, type WriteOp, type WriteOutcome } from "./write-ops.ts";
import { SqliteWriter } from "./writer.ts";

export interface WriterData {
  file: string;
  port: MessagePort;
}

export interface QueuedOp {
  id: number;
  /** Epoch ms after which the op gives up waiting for another connection's write lock. */
  deadline: number;
  op: WriteOp;
}

export type ToWriter = { type: "ops"; ops: QueuedOp[] } | { type: "stop" };
export type FromWriter =
  | { type: "done"; results: ({ id: number } & WriteOutcome)[] }
  | { type: "ready" }
  | { type: "stopped" }
  | { type: "fatal"; error: WireError };

const data = workerData as WriterData;
const port = data.port;
const db = new Database(data.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("foreign_keys = ON");
// This thread waits for the lock itself (see run()), op by op against each op's deadline.
db.pragma("busy_timeout = 0");
// Checkpoints are this thread's and its bulk checkpointer's job (topUp()), never a side effect of a commit.
db.pragma("wal_autocheckpoint = 0");
// A small page cache (SQLite's usual 2 MB, not better-sqlite3's 16 MB). A batch touches a few dozen
// pages (table tails, one leaf of each clustered id index, the account), and every COMMIT of a
// file under 1 GiB scans this cache's whole hash table: balance_nonroot() borrows the lock page's
// number (262,145 at 4 KiB pages) as a temporary one, so the cache's highest key stays above the
// file's size and the truncate at the end of the transaction walks every slot. With 16 MB that
// walk was 3.6% of this thread's CPU at saturation (about 55 µs a commit, estimated from its perf
// samples over ~200 commits a second); with 2 MB it is 0.3%, and page reads stayed at 0.1%
// (docs/performance.md, "A page-cache walk at every commit").
db.pragma("cache_size = -2000");
// A rewound WAL file is cut back to this size instead of keeping a larger high-water mark.
db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
const writer = new SqliteWriter(db);
const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const truncate = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)");

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const BUSY_POLL_MS = 2;
let stopping = false;
let stopped = false;

function send(message: FromWriter): void {
  port.postMessage(message);
}

function take(message: ToWriter, into: QueuedOp[]): void {
  if (message.type === "stop") stopping = true;
  else for (const op of message.ops) into.push(op);
}

/** Everything that arrived since the thread last looked, without going back to the event loop. */
function drain(into: QueuedOp[]): void {
  for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) take(m.message as ToWriter, into);
}

/**
 * Write a batch. While another connection holds the write lock the thread polls every 2 ms;
 * ops whose deadline passes are answered SQLITE_BUSY (503 upstream of here), ops that arrive
 * meanwhile join the batch.
 */
function run(batch: QueuedOp[]): void {
  let pending = batch;
  for (;;) {
    drain(pending);
    if (pending.length === 0) return;
    let outcomes: WriteOutcome[];
    try {
      outcomes = writer.applyBatch(pending.map((q) => q.op));
    } catch (error) {
      const wire = toWireError(error);
      if (!isBusyCode(wire.sqliteCode)) {
        send({ type: "done", results: pending.map((q) => ({ id: q.id, ok: false as const, error: wire })) });
        return;
      }
      const now = Date.now();
      const expired = pending.filter((q) => q.deadline <= now);
      if (expired.length > 0) send({ type: "done", results: expired.map((q) => ({ id: q.id, ok: false as const, error: wire })) });
      pending = pending.filter((q) => q.deadline > now);
      Atomics.wait(sleeper, 0, 0, BUSY_POLL_MS);
      continue;
    }
    send({ type: "done", results: pending.map((q, i) => ({ id: q.id, ...outcomes[i]! })) });
    return;
  }
}

/**
 * Checkpoints in two parts, so writes rarely wait for one:
 * - A second thread (BULK_CHECKPOINTER, its own connection) runs a PASSIVE checkpoint every
 *   25 ms: it copies the WAL into the database file and syncs it while this thread keeps writing.
 *   Under a steady stream of commits it never catches up completely, and SQLite rewinds only a WAL
 *   that was checkpointed completely, so the WAL file keeps growing.
 * - Once the WAL holds more than TOP_UP_FRAMES (64 MiB), this thread tops up between two batches:
 *   a PASSIVE checkpoint with no writer running copies what the bulk thread has not and completes,
 *   so the next write rewinds the WAL. That costs this thread a sync (~10-25 ms here: the file
 *   system flushes whatever is dirty), once every several seconds at full load.
 * Often and small: each sync flushes what is dirty, and on a disk a large flush stalls other writes
 * to the file system, this thread's WAL appends included. Measured (npm run bench, open-loop 2,500
 * req/s): execute p99 37 ms with a bulk pass every 1,000 ms, 27-33 ms every 100 ms, 16-23 ms every
 * 25 ms. Topping up after every bulk pass (10/s) cost this thread ~10 ms each,
 * ~10% of its time; a checkpoint on this thread every 50 ms, the same; a TRUNCATE from another
 * connection every few seconds gave execute p99 42-44 ms. The latency tail that remains is
 * described in docs/performance.md, "Latency tail" (shorter on tmpfs, not gone).
 * Should readers keep checkpoints from completing, past TRUNCATE_FRAMES a TRUNCATE waits briefly
 * for them and empties the file.
 *
 * Pre-flush: SQLite syncs the database file only at the end of a pass that reaches the end of the
 * WAL, which under load means only in the top-up. So every page the bulk passes copied since the
 * last top-up was still dirty then, and the top-up's sync wrote them all: 4-20 ms on this thread,
 * with commits waiting behind it, about once a second at 3,300 execute/s, the largest share of the
 * commit tail. Now, once the WAL is in the last quarter before a top-up (FLUSH_FROM_FRAMES), the
 * bulk thread fdatasyncs the database file after each pass that copied pages, off the write path,
 * and the top-up's sync carries only what was copied since: top-ups of 1.1-1.7 ms at 3,200/s and
 * 2.5-8 ms saturated (per-second histograms in the bench's server process). Flushing after every
 * pass cut the tail less (execute p99 at equal load 14-23 ms against 10-14 ms, three paired runs
 * each) and cost the threads ~6 µs of CPU a call; the last quarter costs nothing measurable. The
 * extra syncs only make copied pages durable sooner.
 */
const BULK_INTERVAL_MS = 25;
const TOP_UP_FRAMES = 16_384;
const TRUNCATE_FRAMES = 65_536;
/** Bulk passes flush the database file once the WAL holds this much (the last quarter before a top-up). */
const FLUSH_FROM_FRAMES = (TOP_UP_FRAMES * 3) / 4;

function topUp(force = false): void {
  try {
    const { log } = passive.get() as { log: number };
    if (force || log > TRUNCATE_FRAMES) {
      db.pragma("busy_timeout = 1000");
      try {
        truncate.get();
      } finally {
        db.pragma("busy_timeout = 0");
      }
    }
  } catch {
    // The bulk thread or another connection holds the checkpoint lock: the next report retries.
  }
}

const BULK_CHECKPOINTER = `
const { workerData } = require("node:worker_threads");
const Database = require(workerData.modulePath);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 0");
const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const fs = require("node:fs");
const dbFd = fs.openSync(workerData.file, "r");
const port = workerData.port;
let backfilled = -1;
const timer = setInterval(() => {
  let result;
  try {
    result = passive.get();
  } catch { return; /* busy: the next tick tries again */ }
  // Flush what this pass copied (see "Pre-flush" above); an I/O error ends this thread and the
  // writer falls back to checkpointing on its own.
  if (result.log >= workerData.flushFromFrames && result.checkpointed !== backfilled) {
    fs.fdatasyncSync(dbFd);
    backfilled = result.checkpointed;
  }
  if (result.log > 0) port.postMessage(result);
}, workerData.intervalMs);
port.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  fs.closeSync(dbFd);
  db.close();
  port.postMessage("stopped");
  port.close();
});
`;

const bulkChannel = new MessageChannel();
const bulk = new Worker(BULK_CHECKPOINTER, {
  eval: true,
  workerData: {
    file: data.file,
    intervalMs: BULK_INTERVAL_MS,
    flushFromFrames: FLUSH_FROM_FRAMES,
    port: bulkChannel.port2,
    modulePath: createRequire(import.meta.url).resolve("better-sqlite3"),
  },
  transferList: [bulkChannel.port2],
});
bulkChannel.port1.on("message", (message: unknown) => {
  if (message !== "stopped" && (message as { log: number }).log > TOP_UP_FRAMES) topUp();
});
// Should the bulk thread fail, this thread checkpoints on its own (each one stalls commits, but the
// WAL stays bounded), rather than letting an unhandled error end the writer too.
let bulkGone = false;
const fallBack = () => {
  if (bulkGone || stopping) return;
  bulkGone = true;
  setInterval(() => topUp(), 100).unref();
};
bulk.on("error", fallBack);
bulk.on("exit", fallBack);

async function stopBulk(): Promise<void> {
  if (bulkGone) return;
  await new Promise<void>((resolve) => {
    bulkChannel.port1.on("message", (message: unknown) => {
      if (message === "stopped") resolve();
    });
    bulk.once("exit", () => resolve());
    bulkChannel.port1.postMessage("stop");
  });
  bulkChannel.port1.close();
}

async function stop(): Promise<void> {
  await stopBulk();
  topUp(true);
  db.close();
  send({ type: "stopped" });
  port.close();
}

port.on("message", (message: ToWriter) => {
  const batch: QueuedOp[] = [];
  take(message, batch);
  try {
    run(batch);
  } catch (error) {
    send({ type: "fatal", error: toWireError(error) });
  }
  if (stopping && !stopped) {
    stopped = true;
    void stop();
  }
});

send({ type: "ready" });
