/**
 * What legal.search and legal.read share (spec 4.6): the 24 EU language codes (and the
 * Publications Office's three-letter codes for them), the CELEX pattern, the source values and
 * source classes, identifiers, and the typed legal.read request a search record points to
 * (`full_text`). Pure; no I/O.
 */
import type { JsonObject } from "../types.ts";

/** The EU's 24 official languages as legal.search and legal.read take them (default EN). */
export const EU_LANGUAGES = [
  "BG", "CS", "DA", "DE", "EL", "EN", "ES", "ET", "FI", "FR", "GA", "HR",
  "HU", "IT", "LT", "LV", "MT", "NL", "PL", "PT", "RO", "SK", "SL", "SV",
] as const;

export type EuLanguage = (typeof EU_LANGUAGES)[number];

/**
 * The Publications Office's language authority codes (ISO 639-2/B as its authority table spells
 * them: http://publications.europa.eu/resource/authority/language/<code>).
 */
export const EU_AUTHORITY_LANGUAGE: Readonly<Record<EuLanguage, string>> = {
  BG: "BUL", CS: "CES", DA: "DAN", DE: "DEU", EL: "ELL", EN: "ENG", ES: "SPA", ET: "EST",
  FI: "FIN", FR: "FRA", GA: "GLE", HR: "HRV", HU: "HUN", IT: "ITA", LT: "LIT", LV: "LAV",
  MT: "MLT", NL: "NLD", PL: "POL", PT: "POR", RO: "RON", SK: "SLK", SL: "SLV", SV: "SWE",
};

/** A CELEX number as legal.read's `eu_official` takes it (spec 4.6). */
export const CELEX_PATTERN = "^[0-9][0-9A-Z()_/-]{5,50}$";

/** legal.read's `source` values (spec 4.6); legal.search records name the same ones. */
export const LEGAL_SOURCES = ["eu_official", "us_reports", "case_index", "historical"] as const;
export type LegalSource = (typeof LEGAL_SOURCES)[number];

/** How close a text is to the authoritative publication (spec 4.6, legal.read details). */
export const SOURCE_CLASSES = ["official_publication", "institutional_transcription", "reproduction"] as const;
export type SourceClass = (typeof SOURCE_CLASSES)[number];

/** EUR-Lex's public page of a document (a link for people; the text is read through legal.read). */
export function eurLexPage(celex: string, language: EuLanguage): string {
  return `https://eur-lex.europa.eu/legal-content/${language}/TXT/?uri=CELEX:${encodeURIComponent(celex)}`;
}

/** CourtListener's public page of an opinion cluster (`absolute_url` is a path on the site). */
export function courtListenerPage(absoluteUrl: string | undefined, clusterId: string): string {
  return absoluteUrl?.startsWith("/") ? `https://www.courtlistener.com${absoluteUrl}` : `https://www.courtlistener.com/opinion/${clusterId}/`;
}

/** Identifiers, one scheme per source: `CELEX:…`, `courtlistener-cluster:…`, `loc:usrep…`, `historical:…`. */
export const identifierOf = {
  celex: (celex: string) => `CELEX:${celex}`,
  cluster: (id: string) => `courtlistener-cluster:${id}`,
  usReports: (itemId: string) => `loc:${itemId}`,
  historical: (workId: string) => `historical:${workId}`,
};

/** The exact legal.read request for a document (a record's `full_text`, spec 4.6): `{capability, params}`. */
export function legalReadRequest(document: JsonObject): JsonObject {
  return { capability: "legal.read", params: { document } };
}

export function euOfficialRead(celex: string, language: EuLanguage): JsonObject | undefined {
  return new RegExp(CELEX_PATTERN).test(celex) ? legalReadRequest({ source: "eu_official", celex, language }) : undefined;
}

export function caseIndexRead(clusterId: string): JsonObject | undefined {
  return /^[0-9]{1,25}$/.test(clusterId) ? legalReadRequest({ source: "case_index", caselaw_id: clusterId }) : undefined;
}

