/**
 * legal.search `eu`: EUR-Lex works found through the Publications Office's CELLAR SPARQL endpoint
 * (`GET /webapi/rdf/sparql?query=…&format=application/sparql-results+json`, keyless), pure.
 *
 * The query lists works (CDM ontology) of the asked kind, by resource type — judgment: `JUDG`;
 * opinion: `OPIN_AG` (Advocates General) and `OPIN_JUR` (the Court's opinions); legislation:
 * regulations, directives and decisions with their implementing and delegated forms — whose title in
 * the asked language contains every word of the query (case-insensitive), newest first, with the
 * CELEX number, the ECLI when the work has one, the document date and the title (one row per work).
 * It is sent as a GET so the replay upstream can match recordings by their query string.
 *
 * Page paging: `num` + 1 rows are asked (`LIMIT`/`OFFSET`); the extra row only says that a next
 * page exists. The stored cursor is `{page}` (0-based).
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { EU_AUTHORITY_LANGUAGE, type EuLanguage, eurLexPage, euOfficialRead, identifierOf } from "../shared/legal.ts";
import { arr, defined, int, obj, type Obj, str } from "../shared/read.ts";
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

export function sparqlQuery(search: EuSearch, num: number, page: number): string {
  const kinds = search.kind === undefined ? EU_KINDS : [search.kind];
  const types = kinds.flatMap((k) => RESOURCE_TYPES[k]).map((t) => `<${RESOURCE_TYPE}${t}>`);
  const language = `<http://publications.europa.eu/resource/authority/language/${EU_AUTHORITY_LANGUAGE[search.language]}>`;
  const words = titleWords(search.query).map((w) => `FILTER(CONTAINS(LCASE(STR(?title_)), ${literal(w)}))`);
  return [
    "PREFIX cdm: <http://publications.europa.eu/ontology/cdm#>",
    "SELECT (SAMPLE(?celex_) AS ?celex) (SAMPLE(?ecli_) AS ?ecli) (SAMPLE(?title_) AS ?title) (MAX(?date_) AS ?date) (SAMPLE(?type_) AS ?type)",
    "WHERE {",
    "?work cdm:resource_legal_id_celex ?celex_ ; cdm:work_has_resource-type ?type_ .",
    `FILTER(?type_ IN (${types.join(", ")}))`,
    `?expr cdm:expression_belongs_to_work ?work ; cdm:expression_uses_language ${language} ; cdm:expression_title ?title_ .`,
    ...words,
    "OPTIONAL { ?work cdm:case-law_ecli ?ecli_ }",
    "OPTIONAL { ?work cdm:work_date_document ?date_ }",
    "}",
    "GROUP BY ?work",
    "ORDER BY DESC(?date) ?celex",
    `LIMIT ${num + 1} OFFSET ${page * num}`,
  ].join("\n");
}

export function toEuRequest(search: EuSearch, num: number, page: number): UpstreamRequest {
  return {
    provider: "eu_publications",
    method: "GET",
    path: SPARQL_PATH,
    query: { query: sparqlQuery(search, num, page), format: SPARQL_JSON },
  };
}

export function parseEuCursor(value: JsonValue): number {
  const page = int(obj(value)?.page);
  return page !== undefined && page > 0 ? page : 0;
}

/** A binding's value (`uri`, `literal` and Virtuoso's `typed-literal` alike). */
function value(binding: Obj, name: string): string | undefined {
  return str(obj(binding[name])?.value);
}

function kindOfType(typeUri: string | undefined): EuKind | undefined {
  const code = typeUri?.startsWith(RESOURCE_TYPE) ? typeUri.slice(RESOURCE_TYPE.length) : undefined;
  return code === undefined ? undefined : EU_KINDS.find((k) => RESOURCE_TYPES[k].includes(code));
}

/** One row (a work) as a record; undefined without a CELEX number. */
export function workRecord(row: Obj, language: EuLanguage): RecordDraft | undefined {
  const celex = value(row, "celex");
  if (celex === undefined) return undefined;
  const url = eurLexPage(celex, language);
  const date = value(row, "date")?.slice(0, 10);
  const summary = defined({
    title: value(row, "title") ?? `CELEX ${celex}`,
    url,
    identifier: identifierOf.celex(celex),
    source: "eu_official",
    source_class: "official_publication",
    language,
    ecli: value(row, "ecli"),
    document_kind: kindOfType(value(row, "type")),
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

/** SPARQL JSON results → up to `num` records and the next page when the extra row came back. */
export function toEuPage(body: unknown, search: EuSearch, num: number, page: number): SourcePage {
  const bindings = arr(obj(obj(body)?.results)?.bindings);
  if (bindings === undefined) {
    throw new ApiError("provider_error", "The CELLAR SPARQL endpoint answered without SPARQL JSON results.", {
      hint: "The provider answered in an unexpected shape; nothing was charged. Retry later.",
    });
  }
  const rows = bindings.map(obj).filter((b): b is Obj => b !== undefined);
  const records = rows
    .slice(0, num)
    .map((r) => workRecord(r, search.language))
    .filter((r): r is RecordDraft => r !== undefined);
  return { records, next: rows.length > num ? { page: page + 1 } : null };
}
