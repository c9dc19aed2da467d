/**
 * legal.read `eu_official`: an act's text by CELEX number and language from the Publications
 * Office's CELLAR content service (the repository EUR-Lex itself publishes from), by content
 * negotiation: `GET /resource/celex/{CELEX}` on publications.europa.eu with `Accept` XHTML or HTML and
 * `Accept-Language` the language's three-letter code, followed through CELLAR's redirects (303 to
 * the item `/resource/cellar/{uuid}.{expression}.{manifestation}/DOC_n`, an http Location on its own
 * host; the upstream client follows it onto the configured base URL). Split by the act's own
 * structure (html-sections.ts: articles, recitals, annexes). A CELEX CELLAR has no HTML text of in
 * that language (404) is the caller's `celex`: 400 at `/document/celex`. A 300 (the text published as
 * several documents) is refused, never read in part. An answer without any act text is drift.
 *
 * Why not EUR-Lex: since November 2025 eur-lex.europa.eu answers automated clients with an AWS WAF
 * JavaScript challenge (202) host-wide (HowTheyVote/howtheyvote#1282, opensanctions/opensanctions#3209
 * and #4702); CELLAR serves the same text without it. EUR-Lex is kept as people's link and probed
 * (`eurLexProbe`), so `quarry providers check` says when its challenge is gone.
 *
 * Consolidated versions (CELEX sector 0) are EUR-Lex's documentation tool without legal effect (the
 * document says so in its first section): their `source_class` is `institutional_transcription`; acts
 * as published are `official_publication`.
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { RequestBase } from "../../upstream/types.ts";
import { EU_AUTHORITY_LANGUAGE, type EuLanguage, identifierOf } from "../shared/legal.ts";
import { checkHtmlDocument } from "./document-check.ts";
import { documentRequest, type Fetched } from "./fetch.ts";
import type { HtmlSectionOptions } from "./html-sections.ts";
import { type ReadDocument, sha256Hex } from "./sections.ts";
import { splitHtml } from "./split-pool.ts";

/** How the Publications Office's document HTML is split: its title is the first of these elements found. */
export const EU_ACT_SPLIT: HtmlSectionOptions = { titleSelectors: [".eli-main-title", "p.title-doc-first", "p.oj-doc-ti", "p.doc-ti"] };

/** Redirects followed from the CELEX resource to its item (CELLAR uses one or two). */
const CELLAR_REDIRECTS = 3;

export const CELLAR_PROVIDER = "eu_publications";

/** The CELEX resource, as CELLAR names it (`source_url`: the text was negotiated from it). */
export function cellarCelexUrl(celex: string): string {
  return `https://publications.europa.eu/resource/celex/${encodeURIComponent(celex)}`;
}

/** EUR-Lex's page of the text in `language` (people's link: a browser passes its challenge). */
export function eurLexTextPage(celex: string, language: EuLanguage): string {
  return `https://eur-lex.europa.eu/legal-content/${language}/TXT/HTML/?uri=CELEX:${encodeURIComponent(celex)}`;
}

/** The act's XHTML (else HTML) in `language`, negotiated from CELLAR by CELEX. */
export function cellarDocumentRequest(celex: string, language: EuLanguage): RequestBase {
  return {
    provider: CELLAR_PROVIDER,
    method: "GET",
    path: `/resource/celex/${encodeURIComponent(celex)}`,
    headers: { accept: "application/xhtml+xml, text/html;q=0.9", "accept-language": EU_AUTHORITY_LANGUAGE[language].toLowerCase() },
    redirects: CELLAR_REDIRECTS,
    acceptStatus: [300, 404],
  };
}

export async function euOfficialDocument(fetched: Fetched, celex: string, language: EuLanguage, signal: AbortSignal): Promise<ReadDocument> {
  if (fetched.status === 404) {
    throw invalidRequest([{ path: "/document/celex", message: `The Publications Office (CELLAR) has no HTML text of CELEX:${celex} in ${language} (404).` }]);
  }
  const label = `CELEX:${celex}`;
  if (fetched.status === 300) {
    throw new ApiError("provider_error", `The Publications Office (CELLAR) holds ${label} in ${language} as several documents; Quarry reads a text only whole.`, {
      retryable: false,
      hint: "Nothing was charged. Read the act on EUR-Lex, or its consolidated version (CELEX sector 0) when it has one.",
    });
  }
  const parsed = await splitHtml(fetched.text, label, EU_ACT_SPLIT, signal);
  checkHtmlDocument(CELLAR_PROVIDER, parsed, `${label} (${language})`);
  const consolidated = celex.startsWith("0");
  const sourceUrl = cellarCelexUrl(celex);
  const pageUrl = eurLexTextPage(celex, language);
  return {
    title: parsed.title ?? label,
    identifier: identifierOf.celex(celex),
    source: "eu_official",
    sourceClass: consolidated ? "institutional_transcription" : "official_publication",
    language,
    sourceUrl,
    pageUrl,
    links: [
      { label: "EUR-Lex", url: pageUrl },
      { label: "Publications Office (CELLAR)", url: sourceUrl },
    ],
    sha256: sha256Hex(fetched.bytes),
    extractionMethod: parsed.split === "paragraphs" ? "html_paragraphs" : "html_structure",
    sections: parsed.sections,
    notes: [
      `Read from the Publications Office's CELLAR (${language}), the repository EUR-Lex publishes from.`,
      ...(consolidated ? ["A consolidated version: EUR-Lex's documentation tool, without legal effect; the authentic texts are those published in the Official Journal."] : []),
    ],
  };
}

/**
 * EUR-Lex's own page of an act (not read: see the module's header). Probed so the operator sees
 * whether its challenge still answers automated clients (the client recognises it).
 */
export const eurLexProbe: ProviderProbe = {
  provider: "eurlex",
  what: "one act's HTML page (EUR-Lex is not read while it answers automated clients with a challenge)",
  request: documentRequest({ provider: "eurlex", method: "GET", path: "/legal-content/EN/TXT/HTML/", query: { uri: "CELEX:02002L0058-20091219" } }),
};
