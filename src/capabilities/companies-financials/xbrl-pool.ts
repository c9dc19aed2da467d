/**
 * XBRL extraction on worker threads (piscina). Parsing a 10-K's instance takes tens to hundreds of
 * milliseconds (docs/performance.md, "XBRL extraction"); on the event loop that would stall every
 * other call, so every instance is parsed on a worker and only the extracted facts come back.
 *
 * One pool per process, made on first use: at most two threads (an instance is parsed by one), none
 * kept once idle for 30 s, each with a heap cap so a pathological document fails its own call only.
 */
import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { ApiError } from "../../errors.ts";
import type { Detail, ExtractResult, ExtractTask, Records } from "./xbrl-worker.ts";

let pool: Piscina<ExtractTask, ExtractResult> | undefined;

function xbrlPool(): Piscina<ExtractTask, ExtractResult> {
  pool ??= new Piscina<ExtractTask, ExtractResult>({
    filename: new URL("./xbrl-worker.ts", import.meta.url).href,
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(2, availableParallelism() - 1)),
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
  });
  return pool;
}

/**
 * The facts of a filing, extracted off the event loop, as the call answers them: a fact view's
 * records, or a record action's detail. Aborted with `signal` (the call's deadline).
 */
export async function extractOffLoop(task: ExtractTask<"records">, signal: AbortSignal): Promise<Records>;
export async function extractOffLoop(task: ExtractTask<"detail">, signal: AbortSignal): Promise<Detail>;
export async function extractOffLoop(task: ExtractTask, signal: AbortSignal): Promise<Records | Detail> {
  let result: ExtractResult;
  try {
    result = await xbrlPool().run(task, { signal });
  } catch (err) {
    if (signal.aborted) throw new ApiError("provider_timeout", "The filing's XBRL instance was not extracted before the deadline.", { cause: err });
    throw new ApiError("internal_error", "The filing's XBRL instance could not be extracted.", { cause: err });
  }
  if ("error" in result) throw new ApiError("provider_error", `EDGAR's XBRL instance could not be read: ${result.error}.`);
  return result;
}

/** Stop the pool's threads (tests and benchmarks that want a clean exit at once). */
export async function closeXbrlPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
