/**
 * The extraction worker pool (piscina), one per process, started on first use. Extraction is CPU
 * work of tens to hundreds of milliseconds a page (docs/performance.md, "Reader"); in the pool it
 * runs beside the event loop, which only hands the page over and takes the result back.
 *
 * Idle workers exit after `IDLE_MS`, so a process that reads no page holds no thread, and an idle
 * pool never keeps a process alive.
 */
import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import type { ExtractResult, ExtractTask } from "./extract-worker.ts";

const IDLE_MS = 30_000;

let pool: Piscina | undefined;

/**
 * Threads: one core fewer than the host has (the event loop keeps one to itself: a worker that
 * shared its core would delay it as surely as work on it), at least 1, at most 4.
 */
export function poolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

function thePool(): Piscina {
  pool ??= new Piscina({
    filename: new URL("./extract-worker.ts", import.meta.url).href,
    minThreads: 0,
    maxThreads: poolSize(),
    idleTimeout: IDLE_MS,
    // A page beyond the extraction cap is cut first, so one task's heap stays well inside this.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  return pool;
}

/** Run one extraction in the pool; `signal` cancels a task not yet finished. */
export function runExtraction(task: ExtractTask, signal?: AbortSignal): Promise<ExtractResult> {
  return thePool().run(task, signal === undefined ? {} : { signal });
}

/** Stop the pool's threads (tests, shutdown); the next extraction starts a new pool. */
export async function closePool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
