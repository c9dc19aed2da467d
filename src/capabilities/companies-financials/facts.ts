/**
 * From extracted XBRL facts (xbrl.ts) to what companies.financials answers, pure: the fact-view
 * records, and the `financials` / `revenue_breakdown` details (at most 100 facts, with the count,
 * `truncated` and a typed `continuation`).
 *
 * revenue_breakdown keeps the facts of the revenue concepts below, each with the dimensions it was
 * reported with, grouped whole-company (no dimension), segment, geographic, product, other. Nothing
 * is summed, netted or completed: a member the filer did not report stays absent, and a fact
 * without dimensions is the filer's figure for the reporting entity, not a sum of the others.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";
import { SOURCE, filingIndexUrl } from "./edgar.ts";
import type { Dimension, Extraction, ExtractedFact, Fact } from "./xbrl.ts";
import { TEXT_FACT_MAX_CHARS } from "./xbrl.ts";

export const FACT_VIEWS = ["financials", "revenue_breakdown"] as const;
export type FactView = (typeof FACT_VIEWS)[number];

/** Facts per detail (spec 8). */
export const MAX_DETAIL_FACTS = 100;

/**
 * Revenue concepts (local names) by taxonomy: the totals and revenue lines of US GAAP (current and
 * retired names, so older filings are read too) and IFRS. Other concepts are not revenue here,
 * whatever their label says.
 */
export const REVENUE_CONCEPTS: Readonly<Record<"us-gaap" | "ifrs-full", readonly string[]>> = {
  "us-gaap": [
    "Revenues",
    "RevenueFromContractWithCustomerExcludingAssessedTax",
    "RevenueFromContractWithCustomerIncludingAssessedTax",
    "RevenuesNetOfInterestExpense",
    "RevenuesExcludingInterestAndDividends",
    "RevenueFromRelatedParties",
    "RevenueFromCollaborativeArrangementExcludingRevenueFromContractWithCustomer",
    "RegulatedAndUnregulatedOperatingRevenue",
    "ElectricUtilityRevenue",
    "RevenueMineralSales",
    "OperatingLeaseLeaseIncome",
    "OperatingLeasesIncomeStatementLeaseRevenue",
    "SalesRevenueNet",
    "SalesRevenueGoodsNet",
    "SalesRevenueGoodsGross",
    "SalesRevenueServicesNet",
  ],
  "ifrs-full": ["Revenue", "RevenueFromContractsWithCustomers", "RevenueFromSaleOfGoods", "RevenueFromRenderingOfServices"],
};

/** The taxonomy a concept namespace belongs to (any year's release). */
function taxonomyOf(namespace: string): keyof typeof REVENUE_CONCEPTS | undefined {
  if (/^http:\/\/(fasb\.org|xbrl\.us)\/us-gaap\//.test(namespace)) return "us-gaap";
  if (/^https?:\/\/xbrl\.ifrs\.org\/taxonomy\/[^/]+\/ifrs-full$/.test(namespace)) return "ifrs-full";
  return undefined;
}

export function isRevenue(f: ExtractedFact): boolean {
  const taxonomy = taxonomyOf(f.namespace);
  return taxonomy !== undefined && REVENUE_CONCEPTS[taxonomy].includes(f.local);
}

/** What a revenue fact breaks down by, from its axes (order of BREAKDOWNS). */
export type Breakdown = "whole_company" | "segment" | "geographic" | "product" | "other";
const BREAKDOWNS: readonly Breakdown[] = ["whole_company", "segment", "geographic", "product", "other"];

const AXES: Readonly<Record<string, Breakdown>> = {
  StatementBusinessSegmentsAxis: "segment",
  SegmentsAxis: "segment",
  StatementGeographicalAxis: "geographic",
  GeographicalAreasAxis: "geographic",
  ProductOrServiceAxis: "product",
  ProductsAndServicesAxis: "product",
};

export function breakdownOf(dimensions: readonly Dimension[]): Breakdown[] {
  if (dimensions.length === 0) return ["whole_company"];
  const kinds = new Set<Breakdown>();
  for (const d of dimensions) {
    const axis = d.dimension?.slice(d.dimension.indexOf(":") + 1);
    kinds.add((axis !== undefined && AXES[axis]) || "other");
  }
  return BREAKDOWNS.filter((b) => kinds.has(b));
}

/** The facts a view lists, in its order: every selected fact; revenue grouped by breakdown. */
export function viewFacts(extraction: Extraction, view: FactView): Fact[] {
  if (view === "financials") return extraction.facts.map((f) => f.fact);
  const revenue = extraction.facts.filter(isRevenue).map((f) => ({ ...f.fact, breakdown: breakdownOf(f.fact.dimensions) }));
  const rank = (f: { breakdown: Breakdown[] }) => BREAKDOWNS.indexOf(f.breakdown.length === 1 ? f.breakdown[0]! : "other");
  // Stable: document order within each group.
  return revenue.map((f, i) => [f, i] as const).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([f]) => f);
}

/** What the caller needs to name the filing again. */
export interface FilingRef {
  cik: string;
  accession: string;
  instanceUrl: string;
  labelsUrl: string | null;
  retrievedAt: string;
}

export function filingLinks(ref: FilingRef): Link[] {
  const links: Link[] = [{ label: "XBRL instance", url: ref.instanceUrl }];
  if (ref.labelsUrl !== null) links.push({ label: "Label linkbase", url: ref.labelsUrl });
  links.push({ label: "Filing index", url: filingIndexUrl(ref.cik, ref.accession) });
  return links;
}

const NOT_ADDITIVE =
  "Revenue views overlap and are not additive: a figure without dimensions (whole company), segment, geographic and " +
  "product figures of one period describe the same revenue and are never to be added together; a member the filer " +
  "did not report is unknown, not zero.";

/** Why facts of the instance are not in a view. */
export function selectionNotes(extraction: Extraction, view: FactView): string[] {
  const s = extraction.skipped;
  const notes: string[] = [];
  const left: string[] = [];
  if (s.nil > 0) left.push(`${s.nil} nil fact(s) (reported without a value)`);
  if (s.longText > 0) {
    left.push(`${s.longText} text fact(s) longer than ${TEXT_FACT_MAX_CHARS} characters (text blocks and policies: ${s.longTextConcepts.join(", ")})`);
  }
  if (s.brokenReference > 0) left.push(`${s.brokenReference} fact(s) whose context or unit the instance does not define`);
  if (left.length > 0) notes.push(`Of the instance's ${extraction.factElements} facts, these are not selected: ${left.join("; ")}.`);
  if (extraction.labelledConcepts === 0) notes.push("The filing has no label linkbase Quarry could read: every `label` is null.");
  notes.push(
    "Values are as reported: numbers are not scaled by `decimals`, signs are the filer's, and a number a double cannot hold exactly is kept as its reported text.",
  );
  if (view === "revenue_breakdown") {
    notes.push(`Revenue concepts: ${Object.entries(REVENUE_CONCEPTS).flatMap(([t, names]) => names.map((n) => `${t}:${n}`)).join(", ")}.`);
    notes.push(NOT_ADDITIVE);
  }
  return notes;
}

/** The typed request that lists every fact of the view as records (local paging, free). */
export function continuationBody(ref: Pick<FilingRef, "cik" | "accession">, view: FactView): JsonObject {
  return { company: { cik: ref.cik }, view, accession: ref.accession, num: 10 };
}

/** The `financials` / `revenue_breakdown` detail of a filing (spec 4.6 keys). */
export function factDetail(extraction: Extraction, ref: FilingRef, view: FactView): { detail: JsonObject; links: Link[] } {
  const facts = viewFacts(extraction, view);
  const truncated = facts.length > MAX_DETAIL_FACTS;
  const notes = selectionNotes(extraction, view);
  if (truncated) {
    notes.unshift(
      `The first ${MAX_DETAIL_FACTS} of ${facts.length} facts, in the view's order. \`continuation.body\` is an execute request whose ` +
        `records are all ${facts.length} facts in the same order, 10 a page, each page free with \`more\`: fact ${MAX_DETAIL_FACTS + 1} ` +
        `opens page ${MAX_DETAIL_FACTS / 10 + 1}.`,
    );
  }
  if (facts.length === 0) notes.unshift(view === "revenue_breakdown" ? "The filing reports no fact of the revenue concepts listed below." : "The instance has no selected facts.");
  const detail: JsonObject = {
    cik: ref.cik,
    accession: ref.accession,
    source: SOURCE,
    source_documents: ref.labelsUrl === null ? { instance: ref.instanceUrl } : { instance: ref.instanceUrl, labels: ref.labelsUrl },
    content_sha256: extraction.contentSha256,
    ...(extraction.labelsSha256 === null ? {} : { labels_sha256: extraction.labelsSha256 }),
    retrieved_at: ref.retrievedAt,
    extraction_status: "selected_reported_facts",
    facts: facts.slice(0, MAX_DETAIL_FACTS) as unknown as JsonValue[],
    fact_count: facts.length,
    truncated,
    ...(truncated ? { continuation: { capability: "companies.financials", body: continuationBody(ref, view) } } : {}),
    notes,
  };
  return { detail, links: filingLinks(ref) };
}

function unitText(unit: Fact["unit"]): string {
  const bare = (m: string) => m.slice(m.indexOf(":") + 1);
  const num = unit.numerator.map(bare).join("*");
  return unit.denominator.length === 0 ? num : `${num}/${unit.denominator.map(bare).join("*")}`;
}

function periodText(p: Fact["period"]): string {
  if (p.instant !== null) return `at ${p.instant}`;
  if (p.start !== null || p.end !== null) return `${p.start ?? "?"} to ${p.end ?? "?"}`;
  return "forever";
}

function dimensionText(d: Dimension): string {
  return d.type === "explicit" ? `${d.dimension}=${d.member}` : d.type === "typed" ? `${d.dimension}=${JSON.stringify(d.value)}` : `${d.element}=${JSON.stringify(d.value)}`;
}

/**
 * One fact as a fact-view record. Its `details` (the whole fact with its filing's links) is not
 * stored beside it: the record keeps the fact's other fields in its private `ref`, the page keeps
 * what its facts share as its `source` (`pageSource`), and `factDetails` puts them back together
 * when asked (stored, free, no provider call). A filing's facts are a search's many records: storing
 * each fact twice, and the filing's links with every one, made them 2.4 times larger.
 */
export function factRecord(fact: Fact, ref: FilingRef): RecordDraft {
  const unit = unitText(fact.unit);
  const dims = fact.dimensions.length === 0 ? "no dimensions" : fact.dimensions.map(dimensionText).join(", ");
  const summary: RecordDraft["summary"] = {
    title: `${fact.label ?? fact.concept}, ${periodText(fact.period)}: ${fact.value}${unit === "" ? "" : ` ${unit}`}`,
    url: fact.source_url,
    snippet: `${fact.concept} · context ${fact.context_id} · ${dims}`,
    cik: ref.cik,
    accession: ref.accession,
    source: SOURCE,
    fact_id: fact.fact_id,
    value: fact.value,
    unit: fact.unit,
    period: fact.period,
    dimensions: fact.dimensions as unknown as JsonValue[],
  };
  const { breakdown } = fact as Fact & { breakdown?: Breakdown[] };
  const rest: JsonObject = {
    cik: ref.cik,
    accession: ref.accession,
    fact: {
      entity: fact.entity,
      concept: fact.concept,
      label: fact.label,
      context_id: fact.context_id,
      decimals: fact.decimals,
      precision: fact.precision,
      duplicate_fact_ids: fact.duplicate_fact_ids,
      conflicting_values: fact.conflicting_values,
      ...(breakdown === undefined ? {} : { breakdown }),
    },
  };
  return { summary, ref: rest };
}

/** What the facts of a page share (the page's stored `source`); the instance's address is each record's `url` without its fragment. */
export function pageSource(ref: FilingRef): string {
  return JSON.stringify({ labels: ref.labelsUrl, retrieved_at: ref.retrievedAt });
}

/** The `details` of a fact record: the whole fact (spec key order) and its filing's source links. */
// Any JSON value, as the store keeps it (Unknown to the checker, JsonValue to TypeScript).
const json = Type.Unsafe<JsonValue>(Type.Unknown());
/** What a fact record's ref keeps (factRecord) and its details read: its filing and the fact's fields its page does not share. */
export const factRef = Type.Object({
  cik: Type.String(),
  accession: Type.String(),
  fact: Type.Object({
    entity: json,
    concept: json,
    label: json,
    context_id: json,
    decimals: json,
    precision: json,
    duplicate_fact_ids: json,
    conflicting_values: json,
    breakdown: Type.Optional(json),
  }),
});
export type FactRef = Static<typeof factRef>;

export function factDetails(source: string, summary: JsonObject, ref: FactRef): { detail: JsonObject; links: Link[] } | null {
  const fact = ref.fact;
  let filing: { labels: string | null; retrieved_at: string };
  try {
    filing = JSON.parse(source) as typeof filing;
  } catch {
    return null;
  }
  if (typeof summary.url !== "string") return null;
  const instance = summary.url.split("#")[0]!;
  const filingRef: FilingRef = {
    cik: ref.cik,
    accession: ref.accession,
    instanceUrl: instance,
    labelsUrl: filing.labels,
    retrievedAt: filing.retrieved_at,
  };
  const whole: JsonObject = {
    entity: fact.entity,
    period: summary.period!,
    dimensions: summary.dimensions!,
    concept: fact.concept,
    label: fact.label,
    fact_id: summary.fact_id!,
    context_id: fact.context_id,
    unit: summary.unit!,
    value: summary.value!,
    decimals: fact.decimals,
    precision: fact.precision,
    source_url: summary.url!,
    duplicate_fact_ids: fact.duplicate_fact_ids,
    conflicting_values: fact.conflicting_values,
    ...(fact.breakdown === undefined ? {} : { breakdown: fact.breakdown }),
  };
  const detail: JsonObject = {
    cik: filingRef.cik,
    accession: filingRef.accession,
    source: SOURCE,
    filing_index_url: filingIndexUrl(filingRef.cik, filingRef.accession),
    source_documents: filing.labels === null ? { instance } : { instance, labels: filing.labels },
    retrieved_at: filing.retrieved_at,
    fact: whole,
  };
  return { detail, links: filingLinks(filingRef) };
}

/** A fact view's records: every fact of the view, in its order, and the notes that explain them. */
export function factPage(extraction: Extraction, ref: FilingRef, view: FactView): { records: RecordDraft[]; notes: string[]; source: string } {
  const facts = viewFacts(extraction, view);
  const order = view === "revenue_breakdown" ? "grouped whole-company, segment, geographic, product, other" : "in document order";
  const notes = [
    `${facts.length} ${view === "revenue_breakdown" ? "revenue facts" : "facts"} of filing ${ref.accession}, ${order}; \`more\` pages them (free).`,
    ...selectionNotes(extraction, view),
  ];
  return { records: facts.map((f) => factRecord(f, ref)), notes, source: pageSource(ref) };
}
