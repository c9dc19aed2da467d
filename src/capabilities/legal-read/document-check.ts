/**
 * Whether an HTML answer is the document its reader expects, before any of it is served: a page
 * without the element its text is read from (a work's declared `root`), or without any text of a
 * document (no articles or headings, and under MIN_DOCUMENT_CHARS characters: a notice, an empty
 * shell, a page about the document), is the provider's answer drifting. It is `ProviderDrift`
 * (502 provider_error naming the provider, charged nothing), never a short or wrong text.
 */
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { HtmlSections } from "./html-sections.ts";

/** Fewer characters than this, without any structure, is not a document but a page about one. */
export const MIN_DOCUMENT_CHARS = 500;

/**
 * Throws ProviderDrift when `parsed` (the answer of `provider` for `what`) lacks its declared root
 * (`root`, a CSS selector) or holds no document text.
 */
export function checkHtmlDocument(provider: string, parsed: HtmlSections, what: string, root?: string): void {
  if (root !== undefined && parsed.rootFound === false) {
    throw new ProviderDrift(provider, "", `has no \`${root}\` element, where the text of ${what} is read from`);
  }
  const chars = parsed.sections.reduce((n, s) => n + s.text.length, 0);
  if (parsed.split === "paragraphs" && chars < MIN_DOCUMENT_CHARS) {
    throw new ProviderDrift(provider, "", `holds no text of ${what} (no articles or headings, ${chars} characters)`);
  }
}
