/**
 * The worker thread's side of `split-pool.ts`: one document (HTML, a PDF's bytes or plain text) into
 * sections. Parsing a whole act or a volume's PDF takes hundreds of milliseconds (docs/performance.md,
 * "Legal documents"); here it never runs on the gateway's event loop. A PDF that cannot be read comes
 * back as data (`error`, `hint`): an ApiError does not survive the crossing between threads.
 */
import { ApiError } from "../../errors.ts";
import { type HtmlSectionOptions, type HtmlSections, htmlSections } from "./html-sections.ts";
import { type Section, textSections } from "./sections.ts";
import { pdfSections } from "./us-reports-pdf.ts";

export type SplitTask =
  | { kind: "html"; html: string; title: string; options: HtmlSectionOptions }
  | { kind: "text"; text: string; title: string }
  | { kind: "pdf"; bytes: Uint8Array; itemId: string };

/** What each kind of task gives back. */
export interface SplitOutput {
  html: HtmlSections;
  text: Section[];
  pdf: Section[];
}

export type SplitResult = { value: SplitOutput[SplitTask["kind"]] } | { error: string; hint?: string };

export default async function split(task: SplitTask): Promise<SplitResult> {
  try {
    if (task.kind === "html") return { value: htmlSections(task.html, task.title, task.options) };
    if (task.kind === "text") return { value: textSections(task.text, task.title) };
    return { value: await pdfSections(task.bytes, task.itemId) };
  } catch (error) {
    if (error instanceof ApiError) return { error: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }) };
    throw error;
  }
}
