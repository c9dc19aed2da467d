/**
 * legal.search `eu`: EUR-Lex works found through the Publications Office's CELLAR SPARQL endpoint
 * (`GET /webapi/rdf/sparql?query=…&format=application/sparql-results+json`, keyless), pure.
 *
 * The query lists works (CDM ontology) of the asked kind, by resource type — judgment: `JUDG`;
 * opinion: `OPIN_AG` (Advocates General) and `OPIN_JUR` (the Court's opinions); legislation:
 * regulations, directives and decisions with their implementing and delegated forms — whose title in
 * the asked language holds every word of the query, newest first, with the CELEX number, the ECLI
 * when the work has one, the document date and the title (one row per work). It is sent as a GET
 * so the replay upstream can match recordings by their query string.
 *
 * Cost (issue 39): the endpoint is Virtuoso, which refuses a query whose estimated cost is over its
 * limit and stops long ones; a `FILTER(CONTAINS(LCASE(…)))` on titles scans every title of the
 * language. The title's words therefore go to Virtuoso's full-text index (`bif:contains`), which
 * drives the query: each word of three or more letters or digits must begin a word of the title
 * (`'word*'`, a prefix, for four characters or more; Virtuoso wants four before a wildcard; shorter
 * ones exact), and the CONTAINS filters, kept for every word of the query, only check the few titles
 * the index found. Words are cut at anything but letters and digits and quoted, so nothing a caller
 * writes is read as SPARQL or as the index's syntax (AND, OR, NEAR, quotes, wildcards). A query with
 * no such word (only words under three characters or common English words) falls back to the
 * filters alone.
 *
 * Page paging: `num` + 1 rows are asked (`LIMIT`/`OFFSET`); the extra row only says that a next
 * page exists. The stored cursor is `{page}` (0-based).
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { EU_AUTHORITY_LANGUAGE, type EuLanguage, eurLexPage, euOfficialRead, identifierOf } from "../shared/legal.ts";
import { defined, int, obj } from "../shared/read.ts";
import type { JsonValue, RecordDraft, SourcePage } from "../types.ts";

export const EU_KINDS = ["judgment", "legislation", "opinion"] as const;
export type EuKind = (typeof EU_KINDS)[number];

export interface EuSearch {
  jurisdiction: "eu";
  query: string;
  kind?: EuKind;
  language: EuLanguage;
}

export const SPARQL_PATH = "/webapi/rdf/sparql";
export const SPARQL_JSON = "application/sparql-results+json";

const RESOURCE_TYPE = "http://publications.europa.eu/resource/authority/resource-type/";

/** Resource types of each kind (the Publications Office's resource-type authority table). */
export const RESOURCE_TYPES: Readonly<Record<EuKind, readonly string[]>> = {
  judgment: ["JUDG"],
  opinion: ["OPIN_AG", "OPIN_JUR"],
  legislation: ["REG", "REG_IMPL", "REG_DEL", "DIR", "DIR_IMPL", "DIR_DEL", "DEC", "DEC_IMPL", "DEC_DEL"],
};

/** The most words of a query matched against titles (each one must appear). */
const MAX_WORDS = 12;

/** Virtuoso wants this many characters before a wildcard (`'word*'`). */
const WILDCARD_AFTER = 4;

/**
 * Common English words, not asked of the index: Virtuoso's text index may leave such noise words
 * out (its noise-word list), and a title needs none of them to be found. They stay in the CONTAINS
 * filters.
 */
const NOISE = new Set([
  "about", "after", "all", "also", "and", "another", "any", "are", "because", "been", "before", "being", "between", "both",
  "but", "came", "can", "come", "could", "did", "each", "for", "from", "get", "got", "had", "has", "have", "her", "here",
  "him", "himself", "his", "how", "into", "like", "make", "many", "might", "more", "most", "much", "must", "never", "now",
  "only", "other", "our", "out", "over", "said", "same", "see", "should", "since", "some", "still", "such", "take", "than",
  "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "too", "under", "very",
  "was", "way", "well", "were", "what", "where", "which", "while", "who", "with", "would", "you", "your",
]);

/** One variable of a row: every binding (`uri`, `literal`, Virtuoso's `typed-literal`) has a string `value`. */
const binding = Type.Object({ value: Type.String() });

/**
 * One row: a work. Its CELEX number and title are always bound (the query's required patterns);
 * the ECLI, the date and the type may be unbound, and then absent.
 */
export const workRow = Type.Object({
  celex: binding,
  title: binding,
  ecli: Type.Optional(binding),
  date: Type.Optional(binding),
  type: Type.Optional(binding),
});
export type WorkRow = Static<typeof workRow>;

/** SPARQL 1.1 JSON results (W3C), as far as the mapper reads them. */
export const sparqlResults = Type.Object({ results: Type.Object({ bindings: Type.Array(workRow) }) });
export type SparqlResults = Static<typeof sparqlResults>;

/** A SPARQL string literal. */
function literal(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}

/** The query's words, lower-cased, at most MAX_WORDS (an empty list cannot happen: the query is not blank). */
export function titleWords(query: string): string[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "")
    .slice(0, MAX_WORDS);
}

/**
 * The full-text expression for the title's words (`'privacy*' AND 'electronic*'`), or undefined
 * when no word can be asked of the index. Only letters and digits reach it, each run quoted.
 */
export function textIndexQuery(words: readonly string[]): string | undefined {
  const tokens = [...new Set(words.flatMap((w) => w.normalize("NFC").match(/[\p{L}\p{N}]+/gu) ?? []))].filter((t) => t.length >= 3 && !NOISE.has(t));
  if (tokens.length === 0) return undefined;
  return tokens.map((t) => `'${t}${t.length >= WILDCARD_AFTER ? "*" : ""}'`).join(" AND ");
}

export function sparqlQuery(search: EuSearch, num: number, page: number): string {
  const kinds = search.kind === undefined ? EU_KINDS : [search.kind];
  const types = kinds.flatMap((k) => RESOURCE_TYPES[k]).map((t) => `<${RESOURCE_TYPE}${t}>`);
  const language = `<http://publications.europa.eu/resource/authority/language/${EU_AUTHORITY_LANGUAGE[search.language]}>`;
  const words = titleWords(search.query);
  const index = textIndexQuery(words);
  return [
    "PREFIX cdm: <http://publications.europa.eu/ontology/cdm#>",
    "SELECT (SAMPLE(?celex_) AS ?celex) (SAMPLE(?ecli_) AS ?ecli) (SAMPLE(?title_) AS ?title) (MAX(?date_) AS ?date) (SAMPLE(?type_) AS ?type)",
    "WHERE {",
    `?expr cdm:expression_title ?title_ ; cdm:expression_uses_language ${language} ; cdm:expression_belongs_to_work ?work .`,
    ...(index === undefined ? [] : [`?title_ bif:contains ${literal(index)} .`]),
    ...words.map((w) => `FILTER(CONTAINS(LCASE(STR(?title_)), ${literal(w)}))`),
    "?work cdm:resource_legal_id_celex ?celex_ ; cdm:work_has_resource-type ?type_ .",
    `FILTER(?type_ IN (${types.join(", ")}))`,
    "OPTIONAL { ?work cdm:case-law_ecli ?ecli_ }",
    "OPTIONAL { ?work cdm:work_date_document ?date_ }",
    "}",
    "GROUP BY ?work",
    "ORDER BY DESC(?date) ?celex",
    `LIMIT ${num + 1} OFFSET ${page * num}`,
  ].join("\n");
}

export function toEuRequest(search: EuSearch, num: number, page: number): JsonRequest<typeof sparqlResults> {
  return {
    provider: "eu_publications",
    method: "GET",
    path: SPARQL_PATH,
    query: { query: sparqlQuery(search, num, page), format: SPARQL_JSON },
    response: sparqlResults,
  };
}

/** The live check: a one-work search of EU legislation by title, with the adapter's own query and schema. */
export const euPublicationsProbe: ProviderProbe = {
  provider: "eu_publications",
  what: "a one-work search of EU legislation by title (SPARQL)",
  request: toEuRequest({ jurisdiction: "eu", query: "privacy electronic communications", kind: "legislation", language: "EN" }, 1, 0),
};

export function parseEuCursor(value: JsonValue): number {
  const page = int(obj(value)?.page);
  return page !== undefined && page > 0 ? page : 0;
}

function kindOfType(typeUri: string | undefined): EuKind | undefined {
  const code = typeUri?.startsWith(RESOURCE_TYPE) ? typeUri.slice(RESOURCE_TYPE.length) : undefined;
  return code === undefined ? undefined : EU_KINDS.find((k) => RESOURCE_TYPES[k].includes(code));
}

/** One row (a work) as a record; undefined when its CELEX number is blank. */
export function workRecord(row: WorkRow, language: EuLanguage): RecordDraft | undefined {
  const celex = row.celex.value.trim();
  if (celex === "") return undefined;
  const url = eurLexPage(celex, language);
  const date = row.date?.value.slice(0, 10);
  const summary = defined({
    title: row.title.value.trim() || `CELEX ${celex}`,
    url,
    identifier: identifierOf.celex(celex),
    source: "eu_official",
    source_class: "official_publication",
    language,
    ecli: row.ecli?.value.trim() || undefined,
    document_kind: kindOfType(row.type?.value),
    date: date !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined,
    full_text: euOfficialRead(celex, language),
  });
  const detail = defined({
    ...summary,
    celex,
    note:
      "The stored search candidate as the Publications Office's CELLAR lists it; the document's words are read " +
      "with the legal.read request in full_text (free), section by section.",
  });
  return { summary: summary as RecordDraft["summary"], detail, links: [{ label: "EUR-Lex", url }], ref: { celex } };
}

/** SPARQL JSON results (checked by the client) → up to `num` records and the next page when the extra row came back. */
export function toEuPage(body: SparqlResults, search: EuSearch, num: number, page: number): SourcePage {
  const rows = body.results.bindings;
  const records = rows
    .slice(0, num)
    .map((r) => workRecord(r, search.language))
    .filter((r): r is RecordDraft => r !== undefined);
  return { records, next: rows.length > num ? { page: page + 1 } : null };
}
