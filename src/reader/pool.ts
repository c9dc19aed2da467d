/**
 * The reader's extraction pool (src/workers/pool.ts), one per process, started on first use.
 * Extraction is CPU work of tens to hundreds of milliseconds a page (docs/performance.md, "Reader");
 * in the pool it runs beside the event loop, which only hands the page over and takes the result back.
 * At most 4 threads; a page beyond the extraction cap is cut first, so one task's heap stays well
 * inside the 512 MB cap.
 */
import { workerPool } from "../workers/pool.ts";
import type { ExtractResult, ExtractTask } from "./extract-worker.ts";

const pool = workerPool<ExtractTask, ExtractResult>(new URL("./extract-worker.ts", import.meta.url), { maxThreads: 4, maxOldGenerationSizeMb: 512 });

/** Threads the pool uses on this host: one core fewer than it has, at least 1, at most 4. */
export function poolSize(): number {
  return pool.threads;
}

/** Run one extraction in the pool; `signal` cancels a task not yet finished. */
export function runExtraction(task: ExtractTask, signal?: AbortSignal): Promise<ExtractResult> {
  return pool.run(task, signal);
}

/** Stop the pool's threads (tests, shutdown); the next extraction starts a new pool. */
export function closePool(): Promise<void> {
  return pool.close();
}
