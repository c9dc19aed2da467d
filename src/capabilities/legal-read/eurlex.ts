/**
 * legal.read `eu_official`: a EUR-Lex document's HTML by CELEX number and language
 * (`GET /legal-content/{LANG}/TXT/HTML/?uri=CELEX:{celex}`), split by its own structure
 * (html-sections.ts: articles, recitals, annexes). A CELEX EUR-Lex does not know (404) is the
 * caller's `celex`: 400 at `/document/celex`. Consolidated versions (CELEX sector 0) are EUR-Lex's
 * documentation tool without legal effect (the document says so in its first section): their
 * `source_class` is `institutional_transcription`; acts as published are `official_publication`.
 */
import { invalidRequest } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { type EuLanguage, identifierOf } from "../shared/legal.ts";
import type { Fetched } from "./fetch.ts";
import type { HtmlSectionOptions } from "./html-sections.ts";
import { noText, type ReadDocument, sha256Hex } from "./sections.ts";
import { splitHtml } from "./split-pool.ts";

/** How EUR-Lex's document HTML is split: its title is the first of these elements found. */
export const EURLEX_SPLIT: HtmlSectionOptions = { titleSelectors: [".eli-main-title", "p.title-doc-first", "p.oj-doc-ti", "p.doc-ti"] };

/** Fewer characters than this, without any article structure, is not a document but a page about one. */
const MIN_UNSTRUCTURED_CHARS = 500;

export function eurLexHtmlRequest(celex: string, language: EuLanguage): UpstreamRequest {
  return {
    provider: "eurlex",
    method: "GET",
    path: `/legal-content/${language}/TXT/HTML/`,
    query: { uri: `CELEX:${celex}` },
    acceptStatus: [404],
  };
}

export async function eurLexDocument(fetched: Fetched, celex: string, language: EuLanguage, signal: AbortSignal): Promise<ReadDocument> {
  if (fetched.status === 404) {
    throw invalidRequest([{ path: "/document/celex", message: `EUR-Lex has no document CELEX:${celex} in ${language} (404).` }]);
  }
  const label = `CELEX:${celex}`;
  const parsed = await splitHtml(fetched.text, label, EURLEX_SPLIT, signal);
  const chars = parsed.sections.reduce((n, s) => n + s.text.length, 0);
  if (parsed.split === "paragraphs" && chars < MIN_UNSTRUCTURED_CHARS) throw noText(`EUR-Lex's answer for ${label} (${language})`);
  const consolidated = celex.startsWith("0");
  const sourceUrl = `https://eur-lex.europa.eu/legal-content/${language}/TXT/HTML/?uri=CELEX:${encodeURIComponent(celex)}`;
  return {
    title: parsed.title ?? label,
    identifier: identifierOf.celex(celex),
    source: "eu_official",
    sourceClass: consolidated ? "institutional_transcription" : "official_publication",
    language,
    sourceUrl,
    links: [{ label: "EUR-Lex", url: sourceUrl }],
    sha256: sha256Hex(fetched.bytes),
    extractionMethod: parsed.split === "paragraphs" ? "html_paragraphs" : "html_structure",
    sections: parsed.sections,
    ...(consolidated
      ? { notes: ["A consolidated version: EUR-Lex's documentation tool, without legal effect; the authentic texts are those published in the Official Journal."] }
      : {}),
  };
}
