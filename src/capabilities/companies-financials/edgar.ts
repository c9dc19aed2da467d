/**
 * SEC EDGAR adapter for companies.financials, pure: request builders for the tickers file,
 * `submissions` (and its older pages), a filing's directory index and its documents, and mappers
 * from those bodies to filings and filing records. No I/O here (`filing.ts` does the fetching).
 *
 * Paths as EDGAR documents them (PROVIDERS.md): data.sec.gov `/submissions/CIK##########.json`
 * (older filings in the files `filings.files` names), www.sec.gov `/files/company_tickers.json`, and
 * a filing's files under `/Archives/edgar/data/<cik without zeros>/<accession without dashes>/`.
 */
import { ApiError } from "../../errors.ts";
import { PROVIDERS } from "../../upstream/providers.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { arr, defined, int, obj, str } from "../shared/read.ts";

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

// --- requests ----------------------------------------------------------------------------------------

export function tickersRequest(): UpstreamRequest {
  return { provider: "sec", host: "www", method: "GET", path: "/files/company_tickers.json" };
}

export function submissionsRequest(cik: string): UpstreamRequest {
  // A CIK EDGAR does not know answers 404: no filings, not a failure.
  return { provider: "sec", method: "GET", path: `/submissions/CIK${cik10(cik)}.json`, acceptStatus: [404] };
}

/** A page named by `filings.files` (the name comes from EDGAR: checked before it goes into a path). */
export function olderSubmissionsRequest(name: string): UpstreamRequest {
  if (!/^CIK\d{10}-submissions-\d{3}\.json$/.test(name)) throw new ApiError("provider_error", `EDGAR named an unexpected submissions page "${name}".`);
  return { provider: "sec", method: "GET", path: `/submissions/${name}` };
}

/** A filing's directory listing (`index.json`); 404 when the CIK has no such filing. */
export function filingIndexRequest(cik: string, accession: string): UpstreamRequest {
  return {
    provider: "sec",
    host: "www",
    method: "GET",
    path: `/Archives/edgar/data/${cikPath(cik)}/${accessionPath(accession)}/index.json`,
    acceptStatus: [404],
  };
}

/** One file of a filing, read as text. */
export function documentRequest(cik: string, accession: string, name: string): UpstreamRequest {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new ApiError("provider_error", `EDGAR listed an unexpected file name "${name}".`);
  return {
    provider: "sec",
    host: "www",
    method: "GET",
    path: `/Archives/edgar/data/${cikPath(cik)}/${accessionPath(accession)}/${name}`,
    responseType: "text",
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
export function parseTickers(body: unknown): Map<string, Filer[]> {
  const o = obj(body);
  if (o === undefined) throw new ApiError("provider_error", "EDGAR's tickers file is not the expected object.");
  const out = new Map<string, Filer[]>();
  for (const entry of Object.values(o)) {
    const e = obj(entry);
    const ticker = str(e?.ticker)?.toUpperCase();
    const cik = int(e?.cik_str);
    if (ticker === undefined || cik === undefined) continue;
    const filers = out.get(ticker) ?? [];
    const padded = cik10(cik);
    if (!filers.some((f) => f.cik === padded)) filers.push({ cik: padded, title: str(e?.title) ?? null });
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

/** `{"error": …}` or a body without filings: EDGAR did not answer as documented. */
export function parseSubmissions(body: unknown): Submissions {
  const o = obj(body);
  const filings = obj(o?.filings);
  const recent = obj(filings?.recent);
  if (o === undefined || recent === undefined) throw new ApiError("provider_error", "EDGAR's submissions answer has no filings.recent.");
  const older = (arr(filings?.files) ?? []).flatMap((f): OlderPage[] => {
    const page = obj(f);
    const name = str(page?.name);
    if (name === undefined) return [];
    return [{ name, ...defined({ from: str(page?.filingFrom), to: str(page?.filingTo) }) } as OlderPage];
  });
  return { issuer: str(o.name) ?? null, recent: parseColumns(recent), older };
}

/** An older page: the same parallel arrays as `filings.recent`, at the top level. */
export function parseOlderPage(body: unknown): FilingRow[] {
  const o = obj(body);
  if (o === undefined || arr(o.accessionNumber) === undefined) throw new ApiError("provider_error", "EDGAR's older submissions page has no accessionNumber column.");
  return parseColumns(o);
}

/** EDGAR's column-oriented filings (parallel arrays; "" or a missing cell is no value). */
function parseColumns(columns: Record<string, unknown>): FilingRow[] {
  const col = (name: string) => arr(columns[name]) ?? [];
  const accession = col("accessionNumber");
  const [form, filed, report, accepted, primary, description] = ["form", "filingDate", "reportDate", "acceptanceDateTime", "primaryDocument", "primaryDocDescription"].map(col);
  const [xbrl, inline, fileNumber, filmNumber, items, act, size] = ["isXBRL", "isInlineXBRL", "fileNumber", "filmNumber", "items", "act", "size"].map(col);
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
export function chooseDocuments(body: unknown): FilingDocuments | null {
  const items = arr(obj(obj(body)?.directory)?.item);
  if (items === undefined) throw new ApiError("provider_error", "EDGAR's filing index has no directory.item list.");
  const names = items.map((i) => str(obj(i)?.name)).filter((n): n is string => n !== undefined);
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
