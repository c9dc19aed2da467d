/**
 * legal.read's documents split into sections off the event loop (src/workers/pool.ts): a whole
 * EUR-Lex act of a megabyte blocks a thread for 0.15-0.3 s, a volume's PDF longer. At most two threads,
 * none kept once idle for 30 s, a 1 GB heap cap per thread (the sources' answers are capped at 16-32
 * MB, src/providers.ts).
 */
import { ApiError } from "../../errors.ts";
import { workerPool } from "../../workers/pool.ts";
import type { HtmlSectionOptions, HtmlSections } from "./html-sections.ts";
import type { Section } from "./sections.ts";
import type { SplitOutput, SplitResult, SplitTask } from "./split-worker.ts";

const pool = workerPool<SplitTask, SplitResult>(new URL("./split-worker.ts", import.meta.url), { maxThreads: 2, maxOldGenerationSizeMb: 1024 });

/** One task on the pool; a refusal the worker reports (an unreadable PDF) is provider_error. */
async function run<K extends SplitTask["kind"]>(task: Extract<SplitTask, { kind: K }>, signal: AbortSignal): Promise<SplitOutput[K]> {
  const result = await pool.call(task, signal, "Splitting the document into sections");
  if ("error" in result) throw new ApiError("provider_error", result.error, result.hint === undefined ? {} : { hint: result.hint });
  // The worker answers a task of kind K with SplitOutput[K] (split-worker.ts).
  return result.value as SplitOutput[K];
}

/** htmlSections (html-sections.ts) on a worker. */
export function splitHtml(html: string, title: string, options: HtmlSectionOptions, signal: AbortSignal): Promise<HtmlSections> {
  return run({ kind: "html", html, title, options }, signal);
}

/** textSections (sections.ts) on a worker. */
export function splitText(text: string, title: string, signal: AbortSignal): Promise<Section[]> {
  return run({ kind: "text", text, title }, signal);
}

/** A PDF's pages as sections (us-reports-pdf.ts) on a worker. */
export function splitPdf(bytes: Uint8Array, itemId: string, signal: AbortSignal): Promise<Section[]> {
  return run({ kind: "pdf", bytes, itemId }, signal);
}

/** Stop the pool's threads (tests that want a clean exit at once). */
export function closeSplitPool(): Promise<void> {
  return pool.close();
}
