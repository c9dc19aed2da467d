/**
 * XBRL extraction for companies.financials, pure: an instance document and its label linkbase (as
 * the provider sent them) in, the facts as reported out. No I/O; `xbrl-pool.ts` runs it on a worker
 * thread so a large instance does not hold the event loop.
 *
 * Parsed with fast-xml-parser (document order kept), never with regular expressions. What is read
 * (XBRL 2.1 and XBRL Dimensions 1.0):
 * - contexts: entity (scheme, identifier), period (start/end, instant, or forever), and the
 *   dimensions of `segment` and `scenario`: `xbrldi:explicitMember` (axis and member QNames as
 *   written), `xbrldi:typedMember` (axis and the typed value's text), and any other content of those
 *   containers as `non_dimensional` (legacy segments);
 * - units: `measure`s, or `divide` with numerator and denominator measures;
 * - facts: every element with a `contextRef` (concept QName as written, unit, decimals, precision,
 *   id, value). Numbers stay numbers only when a JavaScript number holds the reported digits
 *   exactly; otherwise the reported text is kept. Nothing is scaled, signed, summed or inferred.
 * - labels: loc → labelArc → label; the standard role first, then terse, verbose, total, other
 *   roles (never documentation); English first.
 *
 * Selection ("selected_reported_facts"): nil facts, non-numeric facts longer than
 * TEXT_FACT_MAX_CHARS (text blocks, policies) and facts whose context or unit is missing are left
 * out and counted. Duplicates (same concept, an equal context, same unit and language) name each
 * other and say whether their values conflict.
 *
 * Shape (issue 39, drift): what the extraction cannot do without is checked as it is read, at no
 * extra pass over the document: the `xbrl` root, each context's entity identifier and period, each
 * unit's measures, facts that name their context, and a label linkbase's `labelLink` with its
 * locators, labels and arcs. A document that lacks one (a renamed element or attribute) throws
 * `XbrlDrift` with a pointer naming it (`/xbrl/context/period`), which the pool answers as
 * ProviderDrift: `502 provider_error` naming SEC EDGAR and the pointer, never an empty fact list.
 */
import { createHash } from "node:crypto";
import { XMLParser } from "fast-xml-parser";

/** Namespaces of the XBRL specifications read here. */
const NS = {
  xbrli: "http://www.xbrl.org/2003/instance",
  xbrldi: "http://xbrl.org/2006/xbrldi",
  link: "http://www.xbrl.org/2003/linkbase",
  xlink: "http://www.w3.org/1999/xlink",
  xsi: "http://www.w3.org/2001/XMLSchema-instance",
  xml: "http://www.w3.org/XML/1998/namespace",
} as const;

/** Non-numeric facts longer than this (text blocks, policies) are not selected. */
export const TEXT_FACT_MAX_CHARS = 1000;

const LABEL_ROLE = "http://www.xbrl.org/2003/role/";
/** Label roles in order of preference; any other role except documentation comes after these. */
const ROLE_ORDER = ["label", "terseLabel", "verboseLabel", "totalLabel"].map((r) => LABEL_ROLE + r);
const NOT_A_NAME = new Set([LABEL_ROLE + "documentation", LABEL_ROLE + "definitionGuidance", LABEL_ROLE + "disclosureGuidance"]);

export interface Dimension {
  /** Where the context holds it. */
  container: "segment" | "scenario";
  /** `explicit` and `typed` are XBRL Dimensions members; `non_dimensional` is other content. */
  type: "explicit" | "typed" | "non_dimensional";
  /** The axis QName as written (explicit and typed). */
  dimension?: string;
  /** The member QName as written (explicit). */
  member?: string;
  /** The typed member's element QName, or the non-dimensional element's. */
  element?: string;
  /** The typed value's text, or the non-dimensional element's. */
  value?: string;
}

export interface Fact {
  entity: { scheme: string | null; identifier: string | null };
  period: { start: string | null; end: string | null; instant: string | null };
  dimensions: Dimension[];
  concept: string;
  label: string | null;
  fact_id: string | null;
  context_id: string;
  unit: { numerator: string[]; denominator: string[] };
  value: number | string;
  decimals: string | null;
  precision: string | null;
  source_url: string;
  duplicate_fact_ids: string[];
  conflicting_values: boolean;
}

/** One selected fact and what revenue_breakdown needs to know about it. */
export interface ExtractedFact {
  fact: Fact;
  /** The concept's namespace (for the revenue list). */
  namespace: string;
  local: string;
}

export interface Extraction {
  facts: ExtractedFact[];
  /** SHA-256 (hex) of the instance as received (UTF-8). */
  contentSha256: string;
  labelsSha256: string | null;
  /** Facts in the instance, selected or not. */
  factElements: number;
  skipped: { nil: number; longText: number; longTextConcepts: string[]; brokenReference: number; tuples: number };
  /** Concepts with a label in the linkbase (0 when there is none). */
  labelledConcepts: number;
}

type Attrs = Record<string, string>;
/** fast-xml-parser's ordered output: an element `{name: children, ":@": attrs}` or text `{"#text": s}`. */
type XNode = Record<string, unknown>;

/** The parse error a caller maps to provider_error: the document is not what EDGAR should serve. */
export class XbrlFormatError extends Error {}

/**
 * A well-formed document without a part the extraction reads (EDGAR changed or renamed it): `pointer`
 * names the part by its local names (`/xbrl/unit/measure`, `/linkbase/labelLink/labelArc`; `@` an
 * attribute, `*` any fact), `problem` says what is wrong ("is missing").
 */
export class XbrlDrift extends XbrlFormatError {
  constructor(
    readonly pointer: string,
    readonly problem: string,
  ) {
    super(`${pointer} ${problem}`);
    this.name = "XbrlDrift";
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  preserveOrder: true,
  parseTagValue: false,
  parseAttributeValue: false,
  // Text is trimmed (a fact's value is its trimmed text), and whitespace between elements then makes
  // no text node: a third fewer nodes to build and collect.
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Numeric character references (&#8217;) are decoded only with this on; it also knows HTML's
  // named entities, which a well-formed instance cannot use (it has no DTD to declare them).
  htmlEntities: true,
});

function parse(xml: string, what: string): XNode[] {
  // No instance or linkbase EDGAR serves has a DTD; one here could only declare entities to expand.
  if (xml.includes("<!DOCTYPE") || xml.includes("<!doctype")) throw new XbrlFormatError(`the ${what} declares a DOCTYPE`);
  try {
    return parser.parse(xml) as XNode[];
  } catch (err) {
    throw new XbrlFormatError(`the ${what} is not well-formed XML (${(err as Error).message})`);
  }
}

function tagOf(node: XNode): string | undefined {
  for (const key in node) if (key !== ":@" && key !== "#text") return key;
  return undefined;
}

function childrenOf(node: XNode, tag: string): XNode[] {
  const c = node[tag];
  return Array.isArray(c) ? (c as XNode[]) : [];
}

function attrsOf(node: XNode): Attrs {
  return (node[":@"] as Attrs | undefined) ?? {};
}

/** The text of a node's subtree (CDATA and entities already resolved by the parser). */
function textOf(children: XNode[]): string {
  let out = "";
  for (const child of children) {
    const t = child["#text"];
    if (t !== undefined) out += String(t);
    else {
      const tag = tagOf(child);
      if (tag !== undefined) out += textOf(childrenOf(child, tag));
    }
  }
  return out;
}

/** Prefix → namespace URI, from `xmlns:*` attributes (and the default namespace under ""). */
class Scope {
  /** QName → [namespace, local name]: an instance repeats a few hundred names thousands of times. */
  private readonly names = new Map<string, [string, string]>();
  /** `ns local` → the attribute names (`prefix:local`) that can carry it here. */
  private readonly attrNames = new Map<string, string[]>();

  constructor(private readonly map: ReadonlyMap<string, string>) {}

  static root(attrs: Attrs): Scope {
    return new Scope(Scope.declared(attrs, new Map([["xml", NS.xml]])));
  }

  private static declared(attrs: Attrs, base: Map<string, string>): Map<string, string> {
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "xmlns") base.set("", v);
      else if (k.startsWith("xmlns:")) base.set(k.slice(6), v);
    }
    return base;
  }

  /** The scope inside an element that declares namespaces of its own (most declare none). */
  within(attrs: Attrs): Scope {
    for (const k in attrs) if (k === "xmlns" || k.startsWith("xmlns:")) return new Scope(Scope.declared(attrs, new Map(this.map)));
    return this;
  }

  /** [namespace, local name] of an element QName. */
  element(qname: string): [string, string] {
    let hit = this.names.get(qname);
    if (hit === undefined) {
      const i = qname.indexOf(":");
      hit = i < 0 ? [this.map.get("") ?? "", qname] : [this.map.get(qname.slice(0, i)) ?? "", qname.slice(i + 1)];
      this.names.set(qname, hit);
    }
    return hit;
  }

  /** The attribute names (`prefix:local`) that carry `ns`'s `local` in this scope (usually one). */
  attrNamesOf(ns: string, local: string): readonly string[] {
    const key = `${ns} ${local}`;
    let names = this.attrNames.get(key);
    if (names === undefined) {
      names = [...this.map].filter(([prefix, uri]) => uri === ns && prefix !== "").map(([prefix]) => `${prefix}:${local}`);
      this.attrNames.set(key, names);
    }
    return names;
  }

  /** The attribute of `attrs` in namespace `ns` with local name `local`. */
  attr(attrs: Attrs, ns: string, local: string): string | undefined {
    return pick(attrs, this.attrNamesOf(ns, local));
  }
}

/** The first of `names` that `attrs` has. */
function pick(attrs: Attrs, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = attrs[name];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The document element (skipping comments' and whitespace's text nodes). */
function rootOf(doc: XNode[]): XNode | undefined {
  return doc.find((n) => tagOf(n) !== undefined);
}

// --- contexts and units ----------------------------------------------------------------------------

interface Context {
  entity: Fact["entity"];
  period: Fact["period"];
  dimensions: Dimension[];
  /** Equal for s-equal contexts (entity, period, dimensions), for duplicate detection. */
  signature: string;
  /** The signature's number (one per distinct signature in the instance). */
  key?: number;
}

function readContext(node: XNode, tag: string, scope: Scope): Context {
  const entity: Fact["entity"] = { scheme: null, identifier: null };
  const period: Fact["period"] = { start: null, end: null, instant: null };
  const dimensions: Dimension[] = [];
  // XBRL 2.1 (4.7): every context has an entity with its identifier, and a period (instant, start
  // and end dates, or forever). EDGAR validates filings against it: a context without one is a
  // changed document, whose facts would carry no company or no time.
  const seen = { entity: false, identifier: false, period: false, forever: false };
  for (const part of childrenOf(node, tag)) {
    const partTag = tagOf(part);
    if (partTag === undefined) continue;
    const [, local] = scope.element(partTag);
    if (local === "entity") {
      seen.entity = true;
      for (const e of childrenOf(part, partTag)) {
        const eTag = tagOf(e);
        if (eTag === undefined) continue;
        const [, eLocal] = scope.element(eTag);
        if (eLocal === "identifier") {
          seen.identifier = true;
          entity.scheme = attrsOf(e).scheme ?? null;
          entity.identifier = textOf(childrenOf(e, eTag)).trim() || null;
        } else if (eLocal === "segment") dimensions.push(...readMembers(childrenOf(e, eTag), "segment", scope));
      }
    } else if (local === "period") {
      seen.period = true;
      for (const p of childrenOf(part, partTag)) {
        const pTag = tagOf(p);
        if (pTag === undefined) continue;
        const [, pLocal] = scope.element(pTag);
        const value = textOf(childrenOf(p, pTag)).trim() || null;
        if (pLocal === "startDate") period.start = value;
        else if (pLocal === "endDate") period.end = value;
        else if (pLocal === "instant") period.instant = value;
        else if (pLocal === "forever") seen.forever = true;
      }
    } else if (local === "scenario") dimensions.push(...readMembers(childrenOf(part, partTag), "scenario", scope));
  }
  if (!seen.entity) throw new XbrlDrift("/xbrl/context/entity", "is missing");
  if (!seen.identifier) throw new XbrlDrift("/xbrl/context/entity/identifier", "is missing");
  if (!seen.period) throw new XbrlDrift("/xbrl/context/period", "is missing");
  if (period.instant === null && !seen.forever) {
    if (period.start === null && period.end === null) throw new XbrlDrift("/xbrl/context/period/instant", "is missing (and there is no startDate/endDate or forever)");
    if (period.start === null) throw new XbrlDrift("/xbrl/context/period/startDate", "is missing");
    if (period.end === null) throw new XbrlDrift("/xbrl/context/period/endDate", "is missing");
  }
  const sorted = [...dimensions].sort((a, b) => (a.dimension ?? a.element ?? "").localeCompare(b.dimension ?? b.element ?? ""));
  return { entity, period, dimensions, signature: JSON.stringify([entity, period, sorted]) };
}

function readMembers(nodes: XNode[], container: Dimension["container"], scope: Scope): Dimension[] {
  const out: Dimension[] = [];
  for (const m of nodes) {
    const mTag = tagOf(m);
    if (mTag === undefined) continue;
    const [ns, local] = scope.element(mTag);
    const dimension = attrsOf(m).dimension;
    if (ns === NS.xbrldi && local === "explicitMember" && dimension !== undefined) {
      out.push({ container, type: "explicit", dimension, member: textOf(childrenOf(m, mTag)).trim() });
    } else if (ns === NS.xbrldi && local === "typedMember" && dimension !== undefined) {
      const inner = childrenOf(m, mTag).find((c) => tagOf(c) !== undefined);
      const innerTag = inner === undefined ? undefined : tagOf(inner);
      out.push({
        container,
        type: "typed",
        dimension,
        ...(innerTag === undefined ? {} : { element: innerTag }),
        value: textOf(childrenOf(m, mTag)).trim(),
      });
    } else {
      out.push({ container, type: "non_dimensional", element: mTag, value: textOf(childrenOf(m, mTag)).trim() });
    }
  }
  return out;
}

function readUnit(node: XNode, tag: string, scope: Scope): Fact["unit"] {
  const unit: Fact["unit"] = { numerator: [], denominator: [] };
  const measures = (nodes: XNode[], into: string[]) => {
    for (const n of nodes) {
      const t = tagOf(n);
      if (t !== undefined && scope.element(t)[1] === "measure") into.push(textOf(childrenOf(n, t)).trim());
    }
  };
  for (const part of childrenOf(node, tag)) {
    const t = tagOf(part);
    if (t === undefined) continue;
    const [, local] = scope.element(t);
    if (local === "measure") unit.numerator.push(textOf(childrenOf(part, t)).trim());
    else if (local === "divide") {
      for (const side of childrenOf(part, t)) {
        const s = tagOf(side);
        if (s === undefined) continue;
        const [, sideLocal] = scope.element(s);
        if (sideLocal === "unitNumerator") measures(childrenOf(side, s), unit.numerator);
        else if (sideLocal === "unitDenominator") measures(childrenOf(side, s), unit.denominator);
      }
      if (unit.numerator.length === 0) throw new XbrlDrift("/xbrl/unit/divide/unitNumerator/measure", "is missing");
      if (unit.denominator.length === 0) throw new XbrlDrift("/xbrl/unit/divide/unitDenominator/measure", "is missing");
    }
  }
  // XBRL 2.1 (4.8): a unit is one or more measures, or a divide.
  if (unit.numerator.length === 0) throw new XbrlDrift("/xbrl/unit/measure", "is missing");
  return unit;
}

// --- values ------------------------------------------------------------------------------------------

/**
 * A reported number as a JavaScript number when that number's shortest decimal form is the reported
 * value (`1566703000`, `1.20` → 1.2, `-0050` → -50), else the reported text (`12345678901234567890`,
 * more digits than a double holds; `1e3`, not a plain decimal): never a rounded figure.
 */
export function reportedNumber(text: string): number | string {
  const t = text.trim();
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(t);
  if (m === null) return t;
  const int = m[2]!.replace(/^0+(?=\d)/, "");
  const frac = (m[3] ?? "").replace(/0+$/, "");
  const canonical = `${m[1] === "-" && (int !== "0" || frac !== "") ? "-" : ""}${int}${frac === "" ? "" : `.${frac}`}`;
  const n = Number(canonical);
  return Number.isFinite(n) && String(n) === canonical ? n : t;
}

// --- labels ------------------------------------------------------------------------------------------

/**
 * Concept key (`us-gaap_Revenues`, the schema element id the locator points at) → label. A label
 * linkbase without label links, locators, labels or arcs, or whose arcs link no label to a concept,
 * is drift (`XbrlDrift`): every fact would otherwise lose its label without a word.
 */
export function readLabels(xml: string): Map<string, string> {
  const root = rootOf(parse(xml, "label linkbase"));
  const out = new Map<string, string>();
  const rootTag = root === undefined ? undefined : tagOf(root);
  if (root === undefined || rootTag === undefined) throw new XbrlDrift("/linkbase", "is missing (the label document has no root element)");
  const scope = Scope.root(attrsOf(root));
  if (scope.element(rootTag)[1] !== "linkbase") throw new XbrlDrift("/linkbase", `is missing (the label document's root element is <${rootTag}>)`);
  const found = { labelLink: 0, loc: 0, label: 0, labelArc: 0 };
  /** Candidate labels per concept key: [rank, text]. */
  const best = new Map<string, [number, string]>();
  for (const link of childrenOf(root, rootTag)) {
    const linkTag = tagOf(link);
    if (linkTag === undefined || scope.element(linkTag)[1] !== "labelLink") continue;
    found.labelLink += 1;
    const inner = scope.within(attrsOf(link));
    const [xLabel, xHref, xRole, xFrom, xTo, xLang] = [
      inner.attrNamesOf(NS.xlink, "label"),
      inner.attrNamesOf(NS.xlink, "href"),
      inner.attrNamesOf(NS.xlink, "role"),
      inner.attrNamesOf(NS.xlink, "from"),
      inner.attrNamesOf(NS.xlink, "to"),
      inner.attrNamesOf(NS.xml, "lang"),
    ];
    const locs = new Map<string, string>();
    const labels = new Map<string, { role: string; lang: string; text: string }[]>();
    const arcs: [string, string][] = [];
    for (const node of childrenOf(link, linkTag)) {
      const tag = tagOf(node);
      if (tag === undefined) continue;
      const attrs = attrsOf(node);
      const local = inner.element(tag)[1];
      if (local === "loc" || local === "label" || local === "labelArc") found[local] += 1;
      const name = pick(attrs, xLabel);
      if (local === "loc" && name !== undefined) {
        const href = pick(attrs, xHref) ?? "";
        const hash = href.indexOf("#");
        if (hash >= 0) locs.set(name, href.slice(hash + 1));
      } else if (local === "label" && name !== undefined) {
        const list = labels.get(name) ?? [];
        list.push({
          role: pick(attrs, xRole) ?? ROLE_ORDER[0]!,
          lang: pick(attrs, xLang) ?? "",
          text: textOf(childrenOf(node, tag)).trim(),
        });
        labels.set(name, list);
      } else if (local === "labelArc") {
        const from = pick(attrs, xFrom);
        const to = pick(attrs, xTo);
        if (from !== undefined && to !== undefined) arcs.push([from, to]);
      }
    }
    for (const [from, to] of arcs) {
      const key = locs.get(from);
      if (key === undefined) continue;
      for (const label of labels.get(to) ?? []) {
        if (label.text === "" || NOT_A_NAME.has(label.role)) continue;
        const roleRank = ROLE_ORDER.indexOf(label.role);
        const lang = label.lang.toLowerCase();
        const langRank = lang === "en-us" ? 0 : lang === "en" || lang.startsWith("en-") ? 1 : 2;
        const rank = (roleRank < 0 ? ROLE_ORDER.length : roleRank) * 3 + langRank;
        const current = best.get(key);
        if (current === undefined || rank < current[0]) best.set(key, [rank, label.text]);
      }
    }
  }
  for (const part of ["labelLink", "loc", "label", "labelArc"] as const) {
    if (found[part] === 0) throw new XbrlDrift(part === "labelLink" ? "/linkbase/labelLink" : `/linkbase/labelLink/${part}`, "is missing");
  }
  if (best.size === 0) throw new XbrlDrift("/linkbase/labelLink/labelArc", "links no label to a concept (its xlink:from and xlink:to name no locator and label)");
  for (const [key, [, text]] of best) out.set(key, text);
  return out;
}

// --- facts -------------------------------------------------------------------------------------------

const STRUCTURE = new Set(["context", "unit", "schemaRef", "linkbaseRef", "roleRef", "arcroleRef", "footnoteLink"]);

/** Extract the facts of `instance` (and labels from `labels`, when the filing has a label linkbase). */
export function extractFacts(instance: string, labels: string | null, instanceUrl: string): Extraction {
  const contentSha256 = createHash("sha256").update(instance, "utf8").digest("hex");
  const labelsSha256 = labels === null ? null : createHash("sha256").update(labels, "utf8").digest("hex");
  const root = rootOf(parse(instance, "XBRL instance"));
  const rootTag = root === undefined ? undefined : tagOf(root);
  const scope = root === undefined ? undefined : Scope.root(attrsOf(root));
  if (root === undefined || rootTag === undefined || scope === undefined || scope.element(rootTag).join(" ") !== `${NS.xbrli} xbrl`) {
    throw new XbrlDrift("/xbrl", `is missing (the document is not an XBRL instance: its root element is ${rootTag === undefined ? "absent" : `<${rootTag}>`})`);
  }
  const labelMap = labels === null ? new Map<string, string>() : readLabels(labels);
  const nodes = childrenOf(root, rootTag);

  const contexts = new Map<string, Context>();
  /** Signatures as small numbers, so a duplicate key is short. */
  const signatures = new Map<string, number>();
  const intern = (signature: string): number => {
    let n = signatures.get(signature);
    if (n === undefined) {
      n = signatures.size;
      signatures.set(signature, n);
    }
    return n;
  };
  /** Unit id → the unit and its signature (units equal by their measures are one unit for duplicates). */
  const units = new Map<string, { unit: Fact["unit"]; signature: number }>();
  /** Context and unit elements, with an id or not (an id renamed away would leave every fact unresolved). */
  const elements = { context: 0, unit: 0 };
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === undefined) continue;
    const [ns, local] = scope.element(tag);
    if (ns !== NS.xbrli) continue;
    if (local === "context" || local === "unit") elements[local] += 1;
    const id = attrsOf(node).id;
    if (id === undefined) continue;
    if (local === "context") {
      const context = readContext(node, tag, scope);
      context.key = intern(context.signature);
      contexts.set(id, context);
    }
    else if (local === "unit") {
      const unit = readUnit(node, tag, scope);
      units.set(id, { unit, signature: intern(JSON.stringify(unit)) });
    }
  }

  const skipped: Extraction["skipped"] = { nil: 0, longText: 0, longTextConcepts: [], brokenReference: 0, tuples: 0 };
  const facts: ExtractedFact[] = [];
  const groups = new Map<string, ExtractedFact[]>();
  let factElements = 0;
  const xsiNil = scope.attrNamesOf(NS.xsi, "nil");
  const xmlLang = scope.attrNamesOf(NS.xml, "lang");
  const noUnit = { unit: { numerator: [], denominator: [] } as Fact["unit"], signature: -1 };
  const unresolved = { context: 0, unit: 0 };
  let namingUnits = 0;
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === undefined) continue;
    const attrs = attrsOf(node);
    const own = scope.within(attrs);
    const [ns, local] = own.element(tag);
    if ((ns === NS.xbrli || ns === NS.link) && STRUCTURE.has(local)) continue;
    const contextRef = attrs.contextRef;
    if (contextRef === undefined) {
      // Tuples (facts grouped in an element without a context): EDGAR does not accept them.
      skipped.tuples += 1;
      continue;
    }
    factElements += 1;
    if ((own === scope ? pick(attrs, xsiNil) : own.attr(attrs, NS.xsi, "nil")) === "true") {
      skipped.nil += 1;
      continue;
    }
    const context = contexts.get(contextRef);
    const unitRef = attrs.unitRef;
    if (unitRef !== undefined) namingUnits += 1;
    const unit = unitRef === undefined ? noUnit : units.get(unitRef);
    if (context === undefined || unit === undefined) {
      skipped.brokenReference += 1;
      unresolved[context === undefined ? "context" : "unit"] += 1;
      continue;
    }
    const raw = textOf(childrenOf(node, tag));
    let value: number | string;
    if (unitRef === undefined) {
      value = raw.trim();
      if (value.length > TEXT_FACT_MAX_CHARS) {
        skipped.longText += 1;
        if (!skipped.longTextConcepts.includes(tag) && skipped.longTextConcepts.length < 20) skipped.longTextConcepts.push(tag);
        continue;
      }
    } else {
      value = reportedNumber(raw);
    }
    const prefix = tag.includes(":") ? tag.slice(0, tag.indexOf(":")) : "";
    const id = attrs.id ?? null;
    const fact: Fact = {
      entity: context.entity,
      period: context.period,
      dimensions: context.dimensions,
      concept: tag,
      label: labelMap.get(prefix === "" ? local : `${prefix}_${local}`) ?? null,
      fact_id: id,
      context_id: contextRef,
      unit: unitRef === undefined ? { numerator: [], denominator: [] } : unit.unit,
      value,
      decimals: attrs.decimals ?? null,
      precision: attrs.precision ?? null,
      source_url: id === null ? instanceUrl : `${instanceUrl}#${encodeURIComponent(id)}`,
      duplicate_fact_ids: [],
      conflicting_values: false,
    };
    const extracted: ExtractedFact = { fact, namespace: ns, local };
    facts.push(extracted);
    const lang = unitRef === undefined ? ((own === scope ? pick(attrs, xmlLang) : own.attr(attrs, NS.xml, "lang")) ?? "") : "";
    const key = `${local} ${ns} ${context.key} ${unit.signature} ${lang}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [extracted]);
    else group.push(extracted);
  }

  // What the facts cannot be read without: a fact names its context (and a numeric one its unit),
  // and they are in the instance. Checked on the counts gathered above, not by another pass.
  if (factElements === 0) throw new XbrlDrift("/xbrl/*/@contextRef", "is missing (no element of the instance is a fact naming its context)");
  if (unresolved.context > 0 && contexts.size === 0) throw new XbrlDrift(elements.context === 0 ? "/xbrl/context" : "/xbrl/context/@id", "is missing");
  if (unresolved.unit > 0 && units.size === 0) throw new XbrlDrift(elements.unit === 0 ? "/xbrl/unit" : "/xbrl/unit/@id", "is missing");
  if (facts.length === 0 && unresolved.context > 0) throw new XbrlDrift("/xbrl/*/@contextRef", "names no context of the instance");
  if (facts.length === 0 && unresolved.unit > 0) throw new XbrlDrift("/xbrl/*/@unitRef", "names no unit of the instance");
  // Units declared and no fact naming one: the numbers would be read as text without their units.
  if (elements.unit > 0 && namingUnits === 0) throw new XbrlDrift("/xbrl/*/@unitRef", "is missing (the instance declares units, and no fact names one)");

  for (const group of groups.values()) {
    if (group.length < 2) continue;
    for (const { fact } of group) {
      const others = group.filter((g) => g.fact !== fact).map((g) => g.fact);
      fact.duplicate_fact_ids = others.map((o) => o.fact_id).filter((x): x is string => x !== null);
      fact.conflicting_values = others.some((o) => !sameValue(o.value, fact.value));
    }
  }

  return { facts, contentSha256, labelsSha256, factElements, skipped, labelledConcepts: labelMap.size };
}

function sameValue(a: number | string, b: number | string): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  return String(a) === String(b);
}
