/**
 * The reader's worker thread (piscina): one task is one page, from its bytes to the content the
 * caller gets: decoded by its charset (decode.ts), extracted (extract.ts) and cut to `maxChars`.
 * Parsing, Readability and conversion never run on the gateway's event loop.
 */
import { cutChars } from "./chars.ts";
import { decodePage } from "./decode.ts";
import { extractHtml, extractPdf, type ReadFormat } from "./extract.ts";
import type { PageKind } from "./fetch-page.ts";

export interface ExtractTask {
  kind: PageKind;
  bytes: Uint8Array;
  charset?: string;
  url: string;
  format: ReadFormat;
  maxChars: number;
}

export interface ExtractResult {
  title?: string;
  /** At most `maxChars` characters (code points) of the content. */
  content: string;
  /** Characters (code points) of the whole content. */
  chars: number;
  truncated: boolean;
  /** No main article was found; the whole page was converted. */
  wholePage?: boolean;
  pages?: number;
}

export default async function extract(task: ExtractTask): Promise<ExtractResult> {
  const page =
    task.kind === "pdf"
      ? await extractPdf(task.bytes)
      : task.kind === "html"
        ? extractHtml(decodePage(task.bytes, task.charset, true), task.url, task.format)
        : { content: decodePage(task.bytes, task.charset, false).trim() };
  const { content, chars, truncated } = cutChars(page.content, task.maxChars);
  return {
    ...(page.title === undefined ? {} : { title: page.title }),
    content,
    chars,
    truncated,
    ...(page.wholePage ? { wholePage: true } : {}),
    ...(page.pages === undefined ? {} : { pages: page.pages }),
  };
}
