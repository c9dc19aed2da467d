/**
 * SEC EDGAR adapter for companies.financials, pure: request builders for the tickers file,
 * `submissions` (and its older pages), a filing's directory index and its documents, and mappers
 * from those bodies to filings and filing records. No I/O here (`filing.ts` does the fetching).
 *
 * Paths as EDGAR documents them (PROVIDERS.md): data.sec.gov `/submissions/CIK##########.json`
 * (older filings in the files `filings.files` names), www.sec.gov `/files/company_tickers.json`, and
 * a filing's files under `/Archives/edgar/data/<cik without zeros>/<accession without dashes>/`.
 *
 * Every JSON answer is declared (the fields the mappers read; EDGAR sends many more): a renamed or
 * retyped field is drift (`502 provider_error` naming it), never an empty list of filings. The XBRL
 * instance and label linkbase are XML, parsed and checked off the event loop (xbrl.ts).
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { PROVIDERS } from "../../providers.ts";
import { nullable, nullish } from "../../upstream/response-check.ts";
import type { JsonRequest, TextRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { defined, int, str } from "../shared/read.ts";

/** The `source` of every record and detail. */
export const SOURCE = "SEC EDGAR";

/** Public addresses for the links callers get (whatever base URL the deployment reads from). */
const WWW = PROVIDERS.sec.hosts.www.defaultBaseUrl;
const DATA = PROVIDERS.sec.hosts.default.defaultBaseUrl;

/** The eight periodic-report forms `forms` accepts (spec 4.6). */
export const REPORT_FORMS = ["10-K", "10-Q", "20-F", "40-F", "10-K/A", "10-Q/A", "20-F/A", "40-F/A"] as const;

/** A CIK as EDGAR's data API writes it: ten digits, zero-padded. */
export function cik10(cik: string | number): string {
  return String(Number(cik)).padStart(10, "0");
}

/** The archive path's form of a CIK: no leading zeros. */
function cikPath(cik: string): string {
  return String(Number(cik));
}

function accessionPath(accession: string): string {
  return accession.replaceAll("-", "");
}

// --- declared answers --------------------------------------------------------------------------------

/** The tickers file: `{"0": {cik_str, ticker, title}, …}` (cik_str a number; a string of digits is read too). */
export const edgarTickers = Type.Record(
  Type.String(),
  Type.Object({ cik_str: Type.Union([Type.Integer(), Type.String()]), ticker: Type.String(), title: nullish(Type.String()) }),
);
export type EdgarTickers = Static<typeof edgarTickers>;

/** One column of EDGAR's column-oriented filings: "" (or, leniently, null) is no value. */
const column = <T extends TSchema>(cell: T) => Type.Optional(Type.Array(nullable(cell)));

/**
 * The filings columns the mappers read (parallel arrays, one cell per filing). A filing cannot be
 * named without its accession number, form and filing date: those three are required.
 */
const filingColumns = {
  accessionNumber: Type.Array(Type.String()),
  form: Type.Array(Type.String()),
  filingDate: Type.Array(Type.String()),
  reportDate: column(Type.String()),
  acceptanceDateTime: column(Type.String()),
  primaryDocument: column(Type.String()),
  primaryDocDescription: column(Type.String()),
  isXBRL: column(Type.Union([Type.Number(), Type.Boolean()])),
  isInlineXBRL: column(Type.Union([Type.Number(), Type.Boolean()])),
  fileNumber: column(Type.String()),
  filmNumber: column(Type.String()),
  items: column(Type.String()),
  act: column(Type.String()),
  size: column(Type.Number()),
};

/** `submissions`: the filer's name, its recent filings, and the older pages (`files`) with their date ranges. */
export const edgarSubmissions = Type.Object({
  name: nullish(Type.String()),
  filings: Type.Object({
    recent: Type.Object(filingColumns),
    files: Type.Optional(Type.Array(Type.Object({ name: Type.String(), filingFrom: nullish(Type.String()), filingTo: nullish(Type.String()) }))),
  }),
});
export type EdgarSubmissions = Static<typeof edgarSubmissions>;

/** An older submissions page: the same columns as `filings.recent`, at the top level. */
export const edgarOlderPage = Type.Object(filingColumns);
export type EdgarOlderPage = Static<typeof edgarOlderPage>;

/** A filing directory's listing (`index.json`): its files by name. */
export const edgarFilingIndex = Type.Object({ directory: Type.Object({ item: Type.Array(Type.Object({ name: Type.String() })) }) });
export type EdgarFilingIndex = Static<typeof edgarFilingIndex>;

// --- requests ----------------------------------------------------------------------------------------

export function tickersRequest(): JsonRequest<typeof edgarTickers> {
  return { provider: "sec", host: "www", method: "GET", path: "/files/company_tickers.json", response: edgarTickers };
}

export function submissionsRequest(cik: string): JsonRequest<typeof edgarSubmissions> {
  // A CIK EDGAR does not know answers 404: no filings, not a failure.
  return { provider: "sec", method: "GET", path: `/submissions/CIK${cik10(cik)}.json`, acceptStatus: [404], response: edgarSubmissions };
}

/** A page named by `filings.files` (the name comes from EDGAR: checked before it goes into a path). */
export function olderSubmissionsRequest(name: string): JsonRequest<typeof edgarOlderPage> {
  if (!/^CIK\d{10}-submissions-\d{3}\.json$/.test(name)) throw new ApiError("provider_error", `EDGAR named an unexpected submissions page "${name}".`);
  return { provider: "sec", method: "GET", path: `/submissions/${name}`, response: edgarOlderPage };
}

/** A filing's directory listing (`index.json`); 404 when the CIK has no such filing. */
export function filingIndexRequest(cik: string, accession: string): JsonRequest<typeof edgarFilingIndex> {
  return {
    provider: "sec",
    host: "www",
    method: "GET",
    path: `/Archives/edgar/data/${cikPath(cik)}/${accessionPath(accession)}/index.json`,
    acceptStatus: [404],
    response: edgarFilingIndex,
  };
}

/** One XML file of a filing (its XBRL instance or label linkbase), read as text and parsed off the event loop. */
export function documentRequest(cik: string, accession: string, name: string): TextRequest {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new ApiError("provider_error", `EDGAR listed an unexpected file name "${name}".`);
  return {
    provider: "sec",
    host: "www",
    method: "GET",
    path: `/Archives/edgar/data/${cikPath(cik)}/${accessionPath(accession)}/${name}`,
    responseType: "text",
    response: "xml",
  };
}

// --- links -------------------------------------------------------------------------------------------

export function filingDirectoryUrl(cik: string, accession: string): string {
  return `${WWW}/Archives/edgar/data/${cikPath(cik)}/${accessionPath(accession)}/`;
}

export function filingIndexUrl(cik: string, accession: string): string {
  return `${filingDirectoryUrl(cik, accession)}${accession}-index.htm`;
}

export function documentUrl(cik: string, accession: string, name: string): string {
  return `${filingDirectoryUrl(cik, accession)}${name}`;
}

export function submissionsUrl(cik: string): string {
  return `${DATA}/submissions/CIK${cik10(cik)}.json`;
}

// --- tickers -----------------------------------------------------------------------------------------

export interface Filer {
  cik: string;
  title: string | null;
}

/** The tickers file (`{"0": {cik_str, ticker, title}, …}`) as upper-cased ticker → filers. */
export function parseTickers(body: EdgarTickers): Map<string, Filer[]> {
  const out = new Map<string, Filer[]>();
  for (const e of Object.values(body)) {
    const ticker = str(e.ticker)?.toUpperCase();
    const cik = int(e.cik_str);
    if (ticker === undefined || cik === undefined) continue;
    const filers = out.get(ticker) ?? [];
    const padded = cik10(cik);
    if (!filers.some((f) => f.cik === padded)) filers.push({ cik: padded, title: str(e.title) ?? null });
    out.set(ticker, filers);
  }
  if (out.size === 0) throw new ApiError("provider_error", "EDGAR's tickers file lists no tickers.");
  return out;
}

// --- submissions -------------------------------------------------------------------------------------

export interface FilingRow {
  accession: string;
  form: string;
  filedAt: string;
  reportDate?: string;
  acceptedAt?: string;
  primaryDocument?: string;
  primaryDescription?: string;
  isXbrl?: boolean;
  isInlineXbrl?: boolean;
  fileNumber?: string;
  filmNumber?: string;
  items?: string;
  act?: string;
  size?: number;
}

export interface OlderPage {
  name: string;
  from?: string;
  to?: string;
}

export interface Submissions {
  issuer: string | null;
  recent: FilingRow[];
  older: OlderPage[];
}

/** The filer's name, its recent filings and its older pages. */
export function parseSubmissions(body: EdgarSubmissions): Submissions {
  const older = (body.filings.files ?? []).flatMap((page): OlderPage[] => {
    const name = str(page.name);
    if (name === undefined) return [];
    return [{ name, ...defined({ from: str(page.filingFrom), to: str(page.filingTo) }) } as OlderPage];
  });
  return { issuer: str(body.name) ?? null, recent: parseColumns(body.filings.recent), older };
}

/** An older page: the same parallel arrays as `filings.recent`, at the top level. */
export function parseOlderPage(body: EdgarOlderPage): FilingRow[] {
  return parseColumns(body);
}

/** EDGAR's column-oriented filings (parallel arrays; "" or a missing cell is no value). */
function parseColumns(columns: EdgarOlderPage): FilingRow[] {
  const col = (name: keyof EdgarOlderPage): readonly unknown[] => columns[name] ?? [];
  const accession = col("accessionNumber");
  const [form, filed, report, accepted, primary, description] = (
    ["form", "filingDate", "reportDate", "acceptanceDateTime", "primaryDocument", "primaryDocDescription"] as const
  ).map(col);
  const [xbrl, inline, fileNumber, filmNumber, items, act, size] = (["isXBRL", "isInlineXBRL", "fileNumber", "filmNumber", "items", "act", "size"] as const).map(col);
  const flag = (v: unknown) => (v === 1 || v === true ? true : v === 0 || v === false ? false : undefined);
  const rows: FilingRow[] = [];
  for (let i = 0; i < accession.length; i++) {
    const acc = str(accession[i]);
    const f = str(form![i]);
    const date = str(filed![i]);
    if (acc === undefined || f === undefined || date === undefined || !/^\d{10}-\d{2}-\d{6}$/.test(acc)) continue;
    rows.push({
      accession: acc,
      form: f,
      filedAt: date,
      ...(defined({
        reportDate: str(report![i]),
        acceptedAt: str(accepted![i]),
        primaryDocument: str(primary![i]),
        primaryDescription: str(description![i]),
        isXbrl: flag(xbrl![i]),
        isInlineXbrl: flag(inline![i]),
        fileNumber: str(fileNumber![i]),
        filmNumber: str(filmNumber![i]),
        items: str(items![i]),
        act: str(act![i]),
        size: int(size![i]) || undefined,
      }) as Partial<FilingRow>),
    });
  }
  return rows;
}

export interface FilingFilter {
  forms?: readonly string[];
  filedFrom?: string;
  filedTo?: string;
  accession?: string;
}

export function matches(row: FilingRow, filter: FilingFilter): boolean {
  if (filter.forms !== undefined && !filter.forms.includes(row.form)) return false;
  if (filter.filedFrom !== undefined && row.filedAt < filter.filedFrom) return false;
  if (filter.filedTo !== undefined && row.filedAt > filter.filedTo) return false;
  if (filter.accession !== undefined && row.accession !== filter.accession) return false;
  return true;
}

/** The year an accession number was assigned (its middle two digits; EDGAR began in 1993). */
export function accessionYear(accession: string): number {
  const yy = Number(accession.slice(11, 13));
  return yy >= 93 ? 1900 + yy : 2000 + yy;
}

/**
 * The older pages a filter needs: none when `recent` reaches back far enough; else those whose
 * date range overlaps the filter's (for an accession, its year).
 */
export function olderPagesFor(subs: Submissions, filter: FilingFilter): OlderPage[] {
  if (subs.older.length === 0) return [];
  const oldest = subs.recent.reduce<string | undefined>((min, r) => (min === undefined || r.filedAt < min ? r.filedAt : min), undefined);
  let from = filter.filedFrom;
  let to = filter.filedTo;
  if (filter.accession !== undefined) {
    if (subs.recent.some((r) => r.accession === filter.accession)) return [];
    const year = accessionYear(filter.accession);
    from = from === undefined || from < `${year}-01-01` ? `${year}-01-01` : from;
    to = to === undefined || to > `${year + 1}-12-31` ? `${year + 1}-12-31` : to;
  } else if (from === undefined || (oldest !== undefined && from >= oldest)) {
    return [];
  }
  return subs.older.filter((p) => (p.to === undefined || from === undefined || p.to >= from) && (p.from === undefined || to === undefined || p.from <= to));
}

/** One filing as a filings-view record, with its stored `details` (identity and source links). */
export function filingRecord(row: FilingRow, cik: string, issuer: string | null): RecordDraft {
  const primaryUrl = row.primaryDocument === undefined ? undefined : documentUrl(cik, row.accession, row.primaryDocument);
  const indexUrl = filingIndexUrl(cik, row.accession);
  const isAmendment = row.form.endsWith("/A");
  const who = issuer ?? `CIK ${cik}`;
  const summary: RecordDraft["summary"] = {
    title: `${who}: Form ${row.form} filed ${row.filedAt}${row.reportDate === undefined ? "" : ` (period ${row.reportDate})`}`,
    url: primaryUrl ?? indexUrl,
    ...defined({ snippet: row.primaryDescription }),
    cik,
    accession: row.accession,
    source: SOURCE,
    ...defined({ issuer: issuer ?? undefined }),
    form: row.form,
    filed_at: row.filedAt,
    ...defined({ report_date: row.reportDate }),
    accepted_at: row.acceptedAt ?? null,
    ...defined({ primary_document: row.primaryDocument, primary_url: primaryUrl }),
    is_amendment: isAmendment,
  };
  const links: Link[] = [];
  if (primaryUrl !== undefined) links.push({ label: "Primary document", url: primaryUrl });
  links.push({ label: "Filing index", url: indexUrl }, { label: "Filing directory", url: filingDirectoryUrl(cik, row.accession) });
  links.push({ label: "Company submissions (JSON)", url: submissionsUrl(cik) });
  const detail: JsonObject = defined({
    cik,
    accession: row.accession,
    issuer: issuer ?? undefined,
    form: row.form,
    is_amendment: isAmendment,
    filed_at: row.filedAt,
    report_date: row.reportDate,
    accepted_at: row.acceptedAt ?? null,
    act: row.act,
    file_number: row.fileNumber,
    film_number: row.filmNumber,
    items: row.items,
    size_bytes: row.size,
    is_xbrl: row.isXbrl,
    is_inline_xbrl: row.isInlineXbrl,
    primary_document: row.primaryDocument,
    primary_document_description: row.primaryDescription,
    primary_url: primaryUrl,
    filing_index_url: indexUrl,
    filing_directory_url: filingDirectoryUrl(cik, row.accession),
    submissions_url: submissionsUrl(cik),
    source: SOURCE,
  });
  return { summary, ref: defined({ cik, accession: row.accession, is_xbrl: row.isXbrl }), detail, links };
}

// --- a filing's directory ----------------------------------------------------------------------------

export interface FilingDocuments {
  instance: string;
  labels: string | null;
}

/**
 * The XBRL instance and label linkbase of a filing, from its directory listing: the instance is the
 * extracted `<name>_htm.xml` of an inline XBRL filing, else the `.xml` beside the taxonomy schema
 * (`<name>.xsd` → `<name>.xml`); the label linkbase is `<name>_lab.xml`. Null when the listing has no
 * instance (filings before XBRL, or forms without financial data).
 */
export function chooseDocuments(body: EdgarFilingIndex): FilingDocuments | null {
  const names = body.directory.item.map((i) => str(i.name)).filter((n): n is string => n !== undefined);
  const has = new Set(names);
  const schemas = names.filter((n) => n.toLowerCase().endsWith(".xsd")).map((n) => n.slice(0, -4));
  let instance: string | undefined;
  for (const base of schemas) {
    instance = [`${base}_htm.xml`, `${base}.xml`].find((n) => has.has(n));
    if (instance !== undefined) break;
  }
  instance ??= names.find((n) => n.endsWith("_htm.xml"));
  if (instance === undefined) return null;
  const base = instance.endsWith("_htm.xml") ? instance.slice(0, -8) : instance.slice(0, -4);
  const labels = names.find((n) => n === `${base}_lab.xml`) ?? names.find((n) => n.endsWith("_lab.xml"));
  return { instance, labels: labels ?? null };
}

/** The live check's probe: one company's `submissions` (Apple's; a small JSON document, never an XBRL instance). */
export const secProbe: ProviderProbe = {
  provider: "sec",
  what: "one company's submissions (Apple, CIK 320193)",
  request: submissionsRequest("320193"),
};
