/**
 * The embedded store's writer thread (started by sqlite-write-channel.ts). It owns the only
 * connection that writes the database file, so the event loop never runs a write transaction,
 * never waits for the write lock and never copies WAL pages. It also checkpoints the WAL, between
 * batches, which makes checkpoints and writes take turns instead of contending for the lock.
 *
 * Protocol on the transferred port: in `{ type: "ops", ops: [{ id, deadline, op }] }` and
 * `{ type: "stop" }`; out `{ type: "done", results: [{ id, ok, value | error }] }` and
 * `{ type: "ready" }`, `{ type: "stopped" }`. A batch is every op that has arrived when the thread is free.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { isBusyCode, SqliteWriter, toWireError, type WireError, type WriteOp, type WriteOutcome } from "./sqlite-writer.ts";

export interface WriterData {
  file: string;
  port: MessagePort;
  /** Checkpoint cadence and the WAL size (frames) past which the WAL is truncated. */
  checkpointIntervalMs: number;
  truncateFrames: number;
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
// Checkpoints are this thread's own job (checkpoint()), never a side effect of a commit.
db.pragma("wal_autocheckpoint = 0");
// Index pages of random ids are touched all over the file; a larger cache rereads fewer of them.
db.pragma("cache_size = -16384");
// After a burst, a rewound WAL file is cut back to this size instead of keeping its high-water mark.
db.pragma(`journal_size_limit = ${16 * 1024 * 1024}`);
const writer = new SqliteWriter(db);
const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const truncate = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)");

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const BUSY_POLL_MS = 2;
let stopping = false;
let lastCheckpoint = Date.now();
/** Whether anything was written since the last checkpoint (an idle store does no checkpoint work). */
let dirty = false;

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
    dirty = true;
    send({ type: "done", results: pending.map((q, i) => ({ id: q.id, ...outcomes[i]! })) });
    return;
  }
}

/**
 * Checkpoint often and little: every 50 ms of writing, a PASSIVE checkpoint copies what was written
 * meanwhile (about 1,000 pages at full load, ~10 ms) between two batches. With no other writer it
 * usually completes, and SQLite then rewinds the WAL at the next write, so the WAL stays small
 * without TRUNCATE. Measured: one large checkpoint every 500 ms stalled writes ~40 ms (execute p99
 * 70 ms); every 50 ms, p99 25 ms. When readers keep a checkpoint from completing and the WAL passes
 * `truncateFrames`, TRUNCATE waits briefly for them and empties the file.
 */
function checkpoint(force = false): void {
  if (!force && (!dirty || Date.now() - lastCheckpoint < data.checkpointIntervalMs)) return;
  lastCheckpoint = Date.now();
  dirty = false;
  try {
    const { log } = passive.get() as { log: number };
    if (force || log > data.truncateFrames) {
      db.pragma("busy_timeout = 1000");
      try {
        truncate.get();
      } finally {
        db.pragma("busy_timeout = 0");
      }
    }
  } catch {
    // Another connection holds the lock (a tool, a test): the next turn tries again.
  }
}

function stop(): void {
  checkpoint(true);
  db.close();
  send({ type: "stopped" });
  port.close();
}

port.on("message", (message: ToWriter) => {
  const batch: QueuedOp[] = [];
  take(message, batch);
  try {
    run(batch);
    checkpoint();
  } catch (error) {
    send({ type: "fatal", error: toWireError(error) });
  }
  if (stopping) stop();
});

// Quiet periods still checkpoint (between batches under load, on this timer when idle).
const timer = setInterval(() => checkpoint(), data.checkpointIntervalMs);
timer.unref();
send({ type: "ready" });
