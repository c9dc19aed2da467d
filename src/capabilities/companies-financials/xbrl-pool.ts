/**
 * XBRL extraction on worker threads (piscina). Parsing a 10-K's instance takes tens to hundreds of
 * milliseconds (docs/performance.md, "XBRL extraction"); on the event loop that would stall every
 * other call, so every instance is parsed on a worker and only the extracted facts come back.
 *
 * One pool per process (src/workers/pool.ts), made on first use: at most two threads (an instance is
 * parsed by one), none kept once idle for 30 s, each with a 1 GB heap cap so a pathological document
 * fails its own call only.
 *
 * The worker checks the documents' shape as it reads them (xbrl.ts): a part the extraction needs that
 * EDGAR no longer sends comes back as data (`{drift}`) and is thrown here as ProviderDrift, the same
 * error as a drifted JSON answer (`502 provider_error` naming SEC EDGAR and the part, not retryable).
 */
import { ApiError } from "../../errors.ts";
import { ProviderDrift } from "../../upstream/response-check.ts";
import { workerPool } from "../../workers/pool.ts";
import type { Detail, ExtractResult, ExtractTask, Records } from "./xbrl-worker.ts";

const pool = workerPool<ExtractTask, ExtractResult>(new URL("./xbrl-worker.ts", import.meta.url), { maxThreads: 2, maxOldGenerationSizeMb: 1024 });

/**
 * The facts of a filing, extracted off the event loop, as the call answers them: a fact view's
 * records, or a record action's detail. Aborted with `signal` (the call's deadline).
 */
export async function extractOffLoop(task: ExtractTask<"records">, signal: AbortSignal): Promise<Records>;
export async function extractOffLoop(task: ExtractTask<"detail">, signal: AbortSignal): Promise<Detail>;
export async function extractOffLoop(task: ExtractTask, signal: AbortSignal): Promise<Records | Detail> {
  const result = await pool.call(task, signal, "Extracting the filing's XBRL instance");
  if ("drift" in result) throw new ProviderDrift("sec", result.drift.pointer, result.drift.problem);
  if ("error" in result) throw new ApiError("provider_error", `EDGAR's XBRL instance could not be read: ${result.error}.`);
  return result;
}

/** Stop the pool's threads (tests and benchmarks that want a clean exit at once). */
export function closeXbrlPool(): Promise<void> {
  return pool.close();
}
