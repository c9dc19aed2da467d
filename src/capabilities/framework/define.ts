/**
 * `defineCapability`: one capability folder's declarations → the `Capability` the platform runs.
 *
 * A folder declares, as data: its texts, TypeBox request schema (the query type is derived from it:
 * `Static<typeof schema>`, no hand-written twin), record keys, paging, deadline, cost (costs.ts),
 * cross-field rules (rules.ts), its sources or its variants chosen by a request field, each a
 * primary → fallback chain (sources.ts), its record actions as a map of named handlers, its update
 * behaviour, and examples. Adapters stay pure mappers that the sources call; this module is the
 * one engine that selects the variant, runs the chain, meters and prices the call, and checks
 * availability. The registry (registry.ts) holds the results with no casts.
 *
 * See docs/architecture.md, "How to add a capability".
 */
import type { Static, TObject } from "@sinclair/typebox";
import { cachedNote } from "../../upstream/answer-cache.ts";
import type { Config } from "../../config.ts";
import { ApiError, type Violation } from "../../errors.ts";
import type {
  ActionResult,
  Availability,
  BaseContext,
  Capability,
  CapabilityContext,
  JsonObject,
  JsonValue,
  Link,
  PagingKind,
  RuntimeAction,
  SearchPage,
  SessionView,
  StoredRecordView,
} from "../types.ts";
import { type CostDecl, creditsFor, Meter, typicalCredits, usedUsd, worstCredits } from "./costs.ts";
import { checkRules, publishedSchema, type Rule, valueAt } from "./rules.ts";
import { firstMissing, keysOf, runChain, type Source } from "./sources.ts";

export type { Source } from "./sources.ts";

/** A stored record as a record action of a capability with query type `Q` sees it. */
export interface RecordView<Q> {
  summary: JsonObject;
  ref: JsonObject | null;
  detail: JsonObject | null;
  /** The query the record was found under (an `update` since does not change it). */
  query: Q;
}

/** What an action handler returns; `billed: false` when it answered without a billed provider call. */
export interface ActionOutput {
  detail: JsonValue;
  links: Link[];
  billed?: boolean;
}

/** What one first (uncached) action call costs, USD. */
export interface ActionCost {
  /** Per call that reached the provider (not charged when the handler returns `billed: false`). */
  perCall?: number;
  /** The most a multi-request handler meters through `ctx.meter`. */
  maxMetered?: number;
}

export interface ActionDecl<Q, Settings> {
  description: string;
  /** `stored`: the search-time detail, free; `fetched`: asked of the provider once, then cached. */
  mode: "stored" | "fetched";
  /** Free when omitted. */
  cost?: ActionCost;
  /**
   * Fetched actions: fetch the detail. Stored actions: look up a detail that was not stored (free);
   * without it a stored action whose detail is gone answers `410 session_expired`. Refuse a record
   * it cannot act on by throwing `invalidRequest` (nothing is charged).
   */
  run?(ctx: CapabilityContext<Settings>, record: RecordView<Q>): Promise<ActionOutput>;
  /**
   * Whether the action can run on the record at all (default: every record). Records it cannot act on
   * are refused by `run`; this says so beforehand, so an answer's `next.example` never suggests one.
   */
  appliesTo?(record: RecordView<Q>): boolean;
}

/** One variant of a capability: its keys, its source chain, and where it differs. */
export interface VariantDecl<Q, Settings> {
  /** Variables the variant needs beyond its sources' own. */
  requiredKeys?: readonly string[];
  sources: readonly Source<Q, Settings>[];
  /** The variant's cost, when it differs from the capability's. */
  cost?: CostDecl<Q>;
  /** Record actions whose handler or cost differs for this variant (names declared by the capability). */
  actions?: Readonly<Record<string, Partial<Pick<ActionDecl<Q, Settings>, "cost" | "run">>>>;
}

export interface UpdateDecl<Q> {
  /** How params apply, for inspect, when `merge` is not the default merge. */
  rule?: string;
  /** Params into the stored query (default: shallow merge, `null` removes a field). */
  merge?(stored: Q, params: JsonObject, session: SessionView): JsonObject;
  /** Rules that read the stored search (shopping's `filter_id` must be one of its filters). */
  rules?(input: { query: Q; params: JsonObject; sent: ReadonlySet<string>; session: SessionView }): Violation[];
  /** Params of an update of `examples[0]`'s search that the demo's recordings answer. */
  example: { title: string; params: JsonObject };
}

export interface CapabilityDecl<S extends TObject, Settings = undefined> {
  id: string;
  title: string;
  summary: string;
  description: string;
  topic: string;
  schema: S;
  recordKeys: TObject;
  paging: PagingKind;
  deadlineMs: 15_000 | 40_000;
  /**
   * How long its providers' answers may be served again for an identical request, free (Quarry's
   * answer cache); default 0 (always asked afresh). Beside the cost: it decides what repeats cost.
   */
  cacheTtlMs?: number;
  /** Results per page (local paging); default `num`, else 1. */
  pageSize?(query: Static<S>): number;
  cost: CostDecl<Static<S>>;
  rules?: readonly Rule[];
  /** The source chain (primary first), or `variants`. */
  sources?: readonly Source<Static<S>, Settings>[];
  /**
   * Variants chosen by the value of a request field (after defaults): a top-level field, or a
   * slash-separated path into a nested one (legal.search's `search/jurisdiction`), read as rules read it.
   */
  variants?: { field: string; options: Readonly<Record<string, VariantDecl<Static<S>, Settings>>> };
  /** Offered when present. */
  update?: UpdateDecl<Static<S>>;
  /** Fields accepted only in `update` params. */
  updateOnly?: readonly string[];
  /** Top-level fields only the source can check (a valid value may still be refused 400 there after a provider call). */
  sourceChecked?: readonly string[];
  actions: Readonly<Record<string, ActionDecl<Static<S>, Settings>>>;
  /** A stored record's detail mapped from its page's source text (pure, free). */
  detailFromSource?(source: string, record: RecordView<Static<S>>): { detail: JsonObject; links: Link[] } | null;
  /** Example bodies as a caller sends them (fields with defaults may be left out; a test validates each). */
  examples: { title: string; body: Partial<Static<S>> }[];
  /** The capability's settings from the environment, parsed once per configuration. */
  settings?(env: Readonly<Record<string, string | undefined>>): Settings;
}

/**
 * The query as the capability declared it. The one place the engine narrows: every query reaching a
 * capability has passed Ajv against `schema` (defaults applied), so it has the schema's static type.
 */
function asQuery<S extends TObject>(query: JsonObject): Static<S> {
  return query as Static<S>;
}

function view<S extends TObject>(record: StoredRecordView): RecordView<Static<S>> {
  return { summary: record.summary, ref: record.ref, detail: record.detail, query: asQuery<S>(record.query) };
}

export function defineCapability<S extends TObject, Settings = undefined>(decl: CapabilityDecl<S, Settings>): Capability {
  if ((decl.sources === undefined) === (decl.variants === undefined)) {
    throw new Error(`${decl.id}: declare exactly one of sources or variants`);
  }
  const variantNames = decl.variants ? Object.keys(decl.variants.options) : [];
  for (const v of Object.values(decl.variants?.options ?? {})) {
    for (const name of Object.keys(v.actions ?? {})) {
      if (!(name in decl.actions)) throw new Error(`${decl.id}: variant action ${name} is not declared`);
    }
  }

  const settingsByConfig = new WeakMap<Config, Settings>();
  const settingsOf = (config: Config): Settings => {
    if (!decl.settings) return undefined as Settings;
    let s = settingsByConfig.get(config);
    if (s === undefined) {
      s = decl.settings(config.env);
      settingsByConfig.set(config, s);
    }
    return s;
  };
  const context = (base: BaseContext): CapabilityContext<Settings> => ({ ...base, settings: settingsOf(base.config), meter: new Meter() });

  const variantOf = (query: JsonObject): VariantDecl<Static<S>, Settings> => {
    if (!decl.variants) return { sources: decl.sources! };
    const value = valueAt(query, decl.variants.field);
    const variant = typeof value === "string" ? decl.variants.options[value] : undefined;
    if (!variant) throw new ApiError("internal_error", `${decl.id}: no variant for ${decl.variants.field}=${JSON.stringify(value)}.`);
    return variant;
  };
  const variantMissing = (v: VariantDecl<Static<S>, Settings>, set: ReadonlySet<string>, config?: Config): string | undefined => {
    const own = firstMissing(v.requiredKeys, set);
    if (own !== undefined) return own;
    // Keys that depend on settings count only where the configuration is known.
    const missing = v.sources.map((s) =>
      typeof s.requiredKeys === "function" && config === undefined
        ? firstMissing(keysOf({ ...s, requiredKeys: [] }, undefined as Settings), set)
        : firstMissing(keysOf(s, config === undefined ? (undefined as Settings) : settingsOf(config)), set),
    );
    return missing.every((m) => m !== undefined) ? missing[0] : undefined;
  };
  const costOf = (query: JsonObject) => variantOf(query).cost ?? decl.cost;

  const actions: Record<string, RuntimeAction> = {};
  for (const [name, action] of Object.entries(decl.actions)) {
    const declFor = (query: JsonObject): ActionDecl<Static<S>, Settings> => ({ ...action, ...(variantOf(query).actions?.[name] ?? {}) });
    const creditsOf = (cost: ActionCost | undefined) => creditsFor((cost?.perCall ?? 0) + (cost?.maxMetered ?? 0));
    const allCosts = [action.cost, ...Object.values(decl.variants?.options ?? {}).map((v) => v.actions?.[name]?.cost)];
    const hasRun = action.run !== undefined || Object.values(decl.variants?.options ?? {}).some((v) => v.actions?.[name]?.run);
    actions[name] = {
      name,
      description: action.description,
      mode: action.mode,
      credits: Math.max(...allCosts.map(creditsOf)),
      maxCredits: (query) => creditsOf(declFor(query).cost),
      appliesTo: (record) => action.appliesTo?.(view<S>(record)) ?? true,
      ...(hasRun
        ? {
            async run(base: BaseContext, record: StoredRecordView): Promise<ActionResult> {
              const chosen = declFor(record.query);
              if (!chosen.run) throw new ApiError("internal_error", `${decl.id}: ${name} has no handler for this record.`);
              const ctx = context(base);
              const out = await chosen.run(ctx, view<S>(record));
              // Answered wholly from Quarry's answer cache: no provider was paid, nothing is charged.
              if (base.answers?.allCached) return { detail: out.detail, links: out.links, credits: 0, costUsd: 0, fromCache: true };
              const usd = (out.billed === false ? 0 : (chosen.cost?.perCall ?? 0)) + ctx.meter.used.meteredUsd;
              return { detail: out.detail, links: out.links, credits: creditsFor(usd), costUsd: usd };
            },
          }
        : {}),
    };
  }

  const rules = decl.rules ?? [];
  const update = decl.update;
  const cap: Capability = {
    id: decl.id,
    title: decl.title,
    summary: decl.summary,
    description: decl.description,
    topic: decl.topic,
    schema: decl.schema,
    publishedSchema: publishedSchema(decl.schema, rules),
    recordKeys: decl.recordKeys,
    paging: decl.paging,
    deadlineMs: decl.deadlineMs,
    cacheTtlMs: decl.cacheTtlMs ?? 0,
    typicalCredits: typicalCredits(decl.cost),
    costBasis: decl.cost.basis,
    ruleTexts: rules.map((r) => r.text),
    checkSettings(config) {
      settingsOf(config);
    },
    availability(set, config): Availability {
      if (!decl.variants) {
        const missing = variantMissing({ sources: decl.sources! }, set, config);
        return missing === undefined ? {} : { missing };
      }
      const missing = variantNames.map((n) => [n, variantMissing(decl.variants!.options[n]!, set, config)] as const);
      const off = missing.filter(([, m]) => m !== undefined);
      if (off.length === 0) return {};
      if (off.length === missing.length) return { missing: off[0]![1]! };
      const field = decl.variants.field;
      return {
        partial: off.map(([n, m]) => `${field} "${n}" is unavailable: ${m} is not set in this deployment`).join("; "),
      };
    },
    missingKeyFor(set, query, config) {
      return variantMissing(variantOf(query), set, config);
    },
    offersUpdate: update !== undefined,
    ...(update?.rule === undefined ? {} : { updateRule: update.rule }),
    updateOnly: decl.updateOnly ?? [],
    sourceChecked: decl.sourceChecked ?? [],
    maxCredits: (query) => worstCredits(costOf(query), asQuery<S>(query)),
    pageSize: (query) => (decl.pageSize ? decl.pageSize(asQuery<S>(query)) : typeof query.num === "number" ? query.num : 1),
    checkRules(query, sent, session) {
      const out = checkRules(rules, sent === undefined ? { query } : { query, sent });
      if (update?.rules && session !== undefined && sent !== undefined) {
        const params = Object.fromEntries([...sent].map((k) => [k, query[k] ?? null]));
        out.push(...update.rules({ query: asQuery<S>(query), params, sent, session }));
      }
      return out;
    },
    ...(update?.merge ? { mergeUpdate: (stored: JsonObject, params: JsonObject, session: SessionView) => update.merge!(asQuery<S>(stored), params, session) } : {}),
    async search(base, query, cursor): Promise<SearchPage> {
      const variant = variantOf(query);
      const ctx = context(base);
      const page = await runChain(variant.sources, ctx, asQuery<S>(query), cursor);
      // Answered wholly from Quarry's answer cache: no provider was paid, nothing is charged.
      if (base.answers?.allCached) return { ...page, credits: 0, costUsd: 0, notes: [...(page.notes ?? []), cachedNote(base.answers)] };
      ctx.meter.page(page.records.length, page.units ?? 0);
      const usd = usedUsd(variant.cost ?? decl.cost, ctx.meter.used);
      return { ...page, credits: creditsFor(usd), costUsd: usd };
    },
    actions,
    ...(decl.detailFromSource ? { detailFromSource: (source: string, record: StoredRecordView) => decl.detailFromSource!(source, view<S>(record)) } : {}),
    examples: decl.examples.map((e) => ({ title: e.title, body: e.body as JsonObject })),
    ...(update ? { updateExample: update.example } : {}),
  };
  return cap;
}
