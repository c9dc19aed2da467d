/**
 * The one way Quarry runs CPU work off the event loop: a piscina pool per job (the reader's page
 * extraction, XBRL facts, legal documents' sections), each made on first use and kept in its module.
 *
 * - Threads: at most one core fewer than the host has (the event loop keeps one to itself: a worker
 *   that shared its core would delay it as surely as work on it), at least 1, at most the job's own cap.
 * - No thread is kept once idle for `idleMs` (default 30 s), so a process that never does the job holds
 *   none, and an idle pool never keeps a process alive.
 * - Each worker's heap is capped, so a pathological document fails its own call only.
 *
 * A worker's module exports a default function from task to result; tasks and results cross threads
 * by structured clone, so they are plain data (a worker reports a refusal as data, not as an ApiError,
 * whose class does not survive the crossing).
 */
import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { ApiError } from "../errors.ts";

export interface WorkerPoolOptions {
  /** Most threads for this job (before the host's own limit, one core fewer than it has). */
  maxThreads: number;
  /** Old-generation heap cap of each worker. */
  maxOldGenerationSizeMb: number;
  idleMs?: number;
}

export interface WorkerPool<Task, Result> {
  /** Run one task; `signal` cancels it if not yet finished. */
  run(task: Task, signal?: AbortSignal): Promise<Result>;
  /**
   * Run one task for a call: past the call's deadline (`signal`) that is `provider_timeout`, "<what>
   * was not finished before the deadline"; a worker that fails (a crash, its heap cap) is
   * `internal_error`. A refusal the worker reports as data is the caller's to map.
   */
  call(task: Task, signal: AbortSignal, what: string): Promise<Result>;
  /** Threads the pool may use on this host. */
  readonly threads: number;
  /** Stop the threads (tests, benchmarks, shutdown); the next task starts a new pool. */
  close(): Promise<void>;
}

/** Threads for a job capped at `max` on this host: one core fewer than it has, at least 1. */
function spareThreads(max: number): number {
  return Math.max(1, Math.min(max, availableParallelism() - 1));
}

export function workerPool<Task, Result>(filename: URL, options: WorkerPoolOptions): WorkerPool<Task, Result> {
  let pool: Piscina<Task, Result> | undefined;
  const threads = spareThreads(options.maxThreads);
  const self: WorkerPool<Task, Result> = {
    threads,
    async call(task, signal, what) {
      try {
        return await self.run(task, signal);
      } catch (err) {
        if (signal.aborted) throw new ApiError("provider_timeout", `${what} was not finished before the deadline.`, { cause: err });
        throw new ApiError("internal_error", `${what} failed.`, { cause: err });
      }
    },
    run(task, signal) {
      pool ??= new Piscina<Task, Result>({
        filename: filename.href,
        minThreads: 0,
        maxThreads: threads,
        idleTimeout: options.idleMs ?? 30_000,
        resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb },
      });
      return pool.run(task, signal === undefined ? {} : { signal });
    },
    async close() {
      const p = pool;
      pool = undefined;
      await p?.destroy();
    },
  };
  return self;
}
