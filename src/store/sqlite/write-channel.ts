/**
 * How the embedded store's writes reach the write connection. Both channels group the writes
 * issued within one event-loop turn into one batch (one transaction, see writer.ts), and a
 * caller's promise settles only after the transaction holding its write has committed, so an
 * answered call is as durable as with one transaction per call.
 *
 * - WorkerChannel (a database file): the batch goes to the writer thread (write-worker.ts).
 * - InlineChannel (in-memory or read-only databases, which a second connection cannot share or
 *   write): the batch runs on this thread's connection.
 */
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { ApiError } from "../../errors.ts";
import type { FromWriter, QueuedOp, ToWriter, WriterData } from "./write-worker.ts";
import { isBusyCode, mapSqliteError } from "./errors.ts";
import { fromWireError, type WriteOp, type WriteOutcome } from "./write-ops.ts";
import { SqliteWriter } from "./writer.ts";

export interface WriteChannel {
  submit(op: WriteOp): Promise<unknown>;
  readonly alive: boolean;
  close(): Promise<void>;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

function settle(waiter: Waiter, outcome: WriteOutcome): void {
  if (outcome.ok) waiter.resolve(outcome.value);
  else waiter.reject(mapSqliteError(fromWireError(outcome.error)));
}

function closedError(): ApiError {
  return new ApiError("service_unavailable", "The embedded database is closed.");
}

/** Pause between attempts while another connection holds the write lock (this thread must not block). */
const INLINE_BUSY_RETRY_MS = 20;

export class InlineChannel implements WriteChannel {
  private readonly writer: SqliteWriter;
  private queue: { op: WriteOp; deadline: number; waiter: Waiter }[] = [];
  private scheduled = false;
  private closed = false;

  constructor(db: Database.Database, private readonly busyTimeoutMs: number) {
    this.writer = new SqliteWriter(db);
  }

  submit(op: WriteOp): Promise<unknown> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ op, deadline: Date.now() + this.busyTimeoutMs, waiter: { resolve, reject } });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    let batch = this.queue;
    this.queue = [];
    while (batch.length > 0) {
      try {
        const outcomes = this.writer.applyBatch(batch.map((b) => b.op));
        batch.forEach((b, i) => {
          settle(b.waiter, outcomes[i]!);
        });
        return;
      } catch (error) {
        const busy = isBusyCode((error as { code?: unknown }).code);
        const now = Date.now();
        for (const b of batch) if (!busy || b.deadline <= now) b.waiter.reject(mapSqliteError(error));
        batch = busy ? batch.filter((b) => b.deadline > now) : [];
      }
      await new Promise((resolve) => setTimeout(resolve, INLINE_BUSY_RETRY_MS));
    }
  }

  get alive(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Loads the TypeScript worker module through tsx inside the new thread (hooks are per thread). */
const WORKER_BOOTSTRAP = `
import { register } from "tsx/esm/api";
register();
await import(${JSON.stringify(new URL("./write-worker.ts", import.meta.url).href)});
`;

export interface WorkerChannelOptions {
  busyTimeoutMs: number;
}

export class WorkerChannel implements WriteChannel {
  private readonly waiters = new Map<number, Waiter>();
  private nextId = 1;
  private outbox: QueuedOp[] = [];
  private scheduled = false;
  private closing: Promise<void> | null = null;
  private stopped: (() => void) | null = null;
  /** Set when the thread is gone; later writes are refused instead of waiting forever. */
  private dead: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly busyTimeoutMs: number,
  ) {
    port.on("message", (message: FromWriter) => this.receive(message));
    worker.on("error", (error) => this.fail(error));
    worker.on("exit", () => {
      this.dead ??= new Error("the writer thread exited");
      this.fail(this.dead);
    });
  }

  /** Start the writer thread on `file`; resolves once it has opened its connection. */
  static async start(file: string, options: WorkerChannelOptions): Promise<WorkerChannel> {
    const { port1, port2 } = new MessageChannel();
    const data: WriterData = { file, port: port2 };
    const worker = new Worker(WORKER_BOOTSTRAP, { eval: true, workerData: data, transferList: [port2] });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: unknown) => reject(mapSqliteError(error));
      worker.once("error", onError);
      port1.once("message", (message: FromWriter) => {
        worker.off("error", onError);
        if (message.type === "ready") resolve();
        else reject(new Error(`writer thread: unexpected first message ${message.type}`));
      });
    });
    // The thread must not keep the process alive on its own; close() waits for it explicitly.
    worker.unref();
    port1.unref();
    return new WorkerChannel(worker, port1, options.busyTimeoutMs);
  }

  submit(op: WriteOp): Promise<unknown> {
    if (this.closing) return Promise.reject(closedError());
    if (this.dead) {
      return Promise.reject(new ApiError("service_unavailable", "The embedded database writer stopped.", { cause: this.dead }));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiters.set(id, { resolve, reject });
      this.outbox.push({ id, deadline: Date.now() + this.busyTimeoutMs, op });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.outbox.length === 0) return;
    const message: ToWriter = { type: "ops", ops: this.outbox };
    this.outbox = [];
    this.port.postMessage(message);
  }

  private receive(message: FromWriter): void {
    if (message.type === "done") {
      for (const result of message.results) {
        const waiter = this.waiters.get(result.id);
        if (!waiter) continue;
        this.waiters.delete(result.id);
        settle(waiter, result);
      }
    } else if (message.type === "fatal") {
      this.fail(fromWireError(message.error));
    } else if (message.type === "stopped") {
      this.stopped?.();
    }
  }

  /** The thread failed: every write in flight is answered 503 (none of them was committed). */
  private fail(cause: unknown): void {
    if (this.waiters.size === 0) return;
    const error = new ApiError("service_unavailable", "The embedded database writer stopped.", { cause });
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
  }

  /** Fault injection for tests: end the thread as a crash would. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  /** Whether the writer thread is running (readiness). */
  get alive(): boolean {
    return this.dead === null && this.closing === null;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.dead) {
        // The thread is gone already: nothing to drain.
        this.port.close();
        return;
      }
      // Writes already submitted go out first; the thread answers them before it stops.
      this.flush();
      this.worker.ref();
      const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
      const stopped = new Promise<void>((resolve) => {
        this.stopped = resolve;
      });
      this.port.postMessage({ type: "stop" } satisfies ToWriter);
      const timer = setTimeout(() => void this.worker.terminate(), 5000);
      await Promise.race([stopped.then(() => exited), exited]);
      clearTimeout(timer);
      this.port.close();
    })();
    return this.closing;
  }
}
