/**
 * legal.read's documents split into sections off the event loop (src/workers/pool.ts): a whole
 * EUR-Lex act of a megabyte blocks a thread for 0.2-0.3 s, a volume's PDF longer. At most two threads,
 * none kept once idle for 30 s, a 1 GB heap cap per thread (the sources' answers are capped at 16-32
 * MB, src/upstream/providers.ts).
 */
import { ApiError } from "../../errors.ts";
import { workerPool } from "../../workers/pool.ts";
import type { HtmlSectionOptions, HtmlSections } from "./html-sections.ts";
import type { Section } from "./sections.ts";
import type { SplitResult, SplitTask } from "./split-worker.ts";

const pool = workerPool<SplitTask, SplitResult>(new URL("./split-worker.ts", import.meta.url), { maxThreads: 2, maxOldGenerationSizeMb: 1024 });

async function run(task: SplitTask, signal: AbortSignal): Promise<SplitResult> {
  const result = await pool.call(task, signal, "Splitting the document into sections");
  if ("error" in result) throw new ApiError("provider_error", result.error, result.hint === undefined ? {} : { hint: result.hint });
  return result;
}

/** htmlSections (html-sections.ts) on a worker. */
export async function splitHtml(html: string, title: string, options: HtmlSectionOptions, signal: AbortSignal): Promise<HtmlSections> {
  const result = await run({ kind: "html", html, title, options }, signal);
  if (!("html" in result)) throw new ApiError("internal_error", "The document's sections came back in the wrong shape.");
  return result.html;
}

/** textSections (sections.ts) on a worker. */
export async function splitText(text: string, title: string, signal: AbortSignal): Promise<Section[]> {
  const result = await run({ kind: "text", text, title }, signal);
  if (!("sections" in result)) throw new ApiError("internal_error", "The document's sections came back in the wrong shape.");
  return result.sections;
}

/** A PDF's pages as sections (us-reports-pdf.ts) on a worker. */
export async function splitPdf(bytes: Uint8Array, itemId: string, signal: AbortSignal): Promise<Section[]> {
  const result = await run({ kind: "pdf", bytes, itemId }, signal);
  if (!("sections" in result)) throw new ApiError("internal_error", "The document's sections came back in the wrong shape.");
  return result.sections;
}

/** Stop the pool's threads (tests that want a clean exit at once). */
export function closeSplitPool(): Promise<void> {
  return pool.close();
}
