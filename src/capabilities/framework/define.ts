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
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { cachedNote } from "../../upstream/answer-cache.ts";
import type { Config } from "../../config.ts";
import { ApiError, invalidRequest, type Violation } from "../../errors.ts";
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

/**
 * A stored record as a record action of a capability with query type `Q` sees it; `R`, the type of its
 * `ref`, is what the action's `needs.ref` schema declares (the stored object, untyped, without one).
 */
export interface RecordView<Q, R = JsonObject | null> {
  summary: JsonObject;
  ref: R;
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

/** The ref a handler sees: the type its action's `needs.ref` declares, else the stored object. */
export type RefOf<R> = unknown extends R ? JsonObject | null : R;

/**
 * The reference fields a record action needs, declared once: the engine offers the action only to
 * records whose stored `ref` matches `ref` (`appliesTo`), refuses any other record `400` at
 * `/record_id` with `refusal` before a provider is asked (nothing is charged), and hands the handler
 * the ref with this schema's type.
 */
export interface RefNeeds<R> {
  /** A TypeBox schema of the fields (other fields of the ref are allowed). */
  ref: TSchema & { static: R };
  /** Why a record without them cannot take the action: the violation's message at `/record_id`. */
  refusal: string | ((record: RecordView<unknown>) => string);
  /** The error's message, when it says more than invalidRequest's default. */
  message?: string;
}

export interface ActionDecl<Q, Settings, R = unknown> {
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
  run?(ctx: CapabilityContext<Settings>, record: RecordView<Q, RefOf<R>>): Promise<ActionOutput>;
  /** The record reference fields the action needs (RefNeeds); records without them are refused. */
  needs?: RefNeeds<R>;
  /**
   * Beyond `needs`: whether the action can run on the record at all (default: every record with the
   * needed ref). Records it cannot act on are refused by `run`; this says so beforehand, so an
   * answer's `next.example` never suggests one.
   */
  appliesTo?(record: RecordView<Q, RefOf<R>>): boolean;
}

/**
 * A stored record's detail mapped from its page's source text (pure, free): `ref` declares the ref
 * fields the mapping reads, and a record whose ref does not match has no detail there (null: the
 * stored action's own look-up, or `410 session_expired`).
 */
export interface SourceDetailDecl<Q, D> {
  ref: TSchema & { static: D };
  map(source: string, record: RecordView<Q, D>): { detail: JsonObject; links: Link[] } | null;
}

/** A variant's own handler or cost for a record action the capability declares (its ref typed the same). */
export type VariantActionDecl<Q, Settings, R> = Partial<Pick<ActionDecl<Q, Settings, R>, "cost" | "run">>;

/** One variant of a capability: its keys, its source chain, and where it differs. */
export interface VariantDecl<Q, Settings, As = Record<string, unknown>> {
  /** Variables the variant needs beyond its sources' own. */
  requiredKeys?: readonly string[];
  sources: readonly Source<Q, Settings>[];
  /** The variant's cost, when it differs from the capability's. */
  cost?: CostDecl<Q>;
  /** Record actions whose handler or cost differs for this variant (names declared by the capability). */
  actions?: { readonly [A in keyof As]?: VariantActionDecl<Q, Settings, As[A]> };
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

/**
 * The value at a request field: a top-level name, or a slash path into nested (tagged-union) fields,
 * as `variants.field` names it. Distributes over unions, so a tagged union's tag gives every tag.
 */
export type ValueAt<Q, P extends string> = Q extends unknown
  ? P extends `${infer Head}/${infer Rest}`
    ? Head extends keyof Q
      ? ValueAt<NonNullable<Q[Head]>, Rest>
      : never
    : P extends keyof Q
      ? Exclude<Q[P], undefined>
      : never
  : never;

/**
 * The query a variant sees: `Q` where the field at `P` holds `V`. A tagged union at that path narrows
 * to its member (TypeScript reduces members whose tag conflicts with `V` to never).
 */
export type NarrowedAt<Q, P extends string, V> = P extends `${infer Head}/${infer Rest}`
  ? Head extends keyof Q
    ? Q & { [K in Head]: NarrowedAt<NonNullable<Q[Head]>, Rest, V> }
    : never
  : Q & { [K in P]: V };

/**
 * Variants chosen by the value of a request field (after defaults): one option for every value the
 * schema allows there, each typed with the query narrowed to its value, so a handler never checks the
 * field again. The engine picks the option by that value (`variantOf`).
 */
export interface VariantsDecl<Q, F extends string, Settings, As = Record<string, unknown>> {
  /** A top-level field, or a slash-separated path into a nested one (legal.search's `search/jurisdiction`). */
  field: F;
  options: { readonly [V in ValueAt<Q, F> & string]: VariantDecl<NarrowedAt<Q, F, V>, Settings, As> };
}

export interface CapabilityDecl<
  S extends TObject,
  Settings = undefined,
  F extends string = never,
  As = Record<string, unknown>,
  Id extends string = string,
  D = unknown,
> {
  id: Id;
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
  /** Variants chosen by a request field's value, read as rules read it (VariantsDecl). */
  variants?: VariantsDecl<Static<S>, F, Settings, As>;
  /** Offered when present. */
  update?: UpdateDecl<Static<S>>;
  /** Fields accepted only in `update` params. */
  updateOnly?: readonly string[];
  /** Top-level fields only the source can check (a valid value may still be refused 400 there after a provider call). */
  sourceChecked?: readonly string[];
  /** Record actions by name, each with the ref type its `needs` declares. */
  actions: { readonly [A in keyof As]: ActionDecl<Static<S>, Settings, As[A]> };
  /** A stored record's detail mapped from its page's source text (SourceDetailDecl). */
  detailFromSource?: SourceDetailDecl<Static<S>, D>;
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

/** A record action as the engine holds it: its handler takes the stored ref. */
type HeldAction<Q, Settings> = ActionDecl<Q, Settings, JsonObject | null>;
/** A variant as the engine holds it: the whole query type, its actions' refs stored objects. */
type HeldVariant<Q, Settings> = VariantDecl<Q, Settings, Record<string, JsonObject | null>>;

/**
 * The declarations as the engine holds them. The one place the engine widens the types a folder
 * declared: `variantOf` hands an option only queries whose field holds that option's value, and an
 * action's handler runs only on a record whose ref passed its `needs.ref` (`refCheck`).
 */
function held<Q, F extends string, Settings, As>(
  variants: VariantsDecl<Q, F, Settings, As> | undefined,
  actions: { readonly [A in keyof As]: ActionDecl<Q, Settings, As[A]> },
): {
  variants: { field: string; options: Readonly<Record<string, HeldVariant<Q, Settings>>> } | undefined;
  actions: Readonly<Record<string, HeldAction<Q, Settings>>>;
} {
  return {
    variants: variants as unknown as { field: string; options: Readonly<Record<string, HeldVariant<Q, Settings>>> } | undefined,
    actions: actions as unknown as Readonly<Record<string, HeldAction<Q, Settings>>>,
  };
}

/** Whether a stored ref has the fields an action's `needs` declares (always, without one). */
function refCheck(needs: { ref: TSchema } | undefined): (ref: JsonObject | null) => boolean {
  if (needs === undefined) return () => true;
  const compiled = TypeCompiler.Compile(needs.ref);
  return (ref) => compiled.Check(ref);
}

/** The engine's side of a SourceDetailDecl: the ref checked, then the mapping with it typed. */
function sourceDetail<Q, D>(
  decl: SourceDetailDecl<Q, D>,
  viewOf: (record: StoredRecordView) => RecordView<Q>,
): (source: string, record: StoredRecordView) => { detail: JsonObject; links: Link[] } | null {
  const hasRef = refCheck(decl);
  // The one widening: the ref passed the declared schema.
  return (source, record) => (hasRef(record.ref) ? decl.map(source, viewOf(record) as unknown as RecordView<Q, D>) : null);
}

export function defineCapability<
  S extends TObject,
  Settings = undefined,
  F extends string = never,
  As = Record<string, unknown>,
  const Id extends string = string,
  D = unknown,
>(declared: CapabilityDecl<S, Settings, F, As, Id, D>): Capability<Id> {
  const decl = { ...declared, ...held(declared.variants, declared.actions) };
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

  const variantOf = (query: JsonObject): HeldVariant<Static<S>, Settings> => {
    if (!decl.variants) return { sources: decl.sources! };
    const value = valueAt(query, decl.variants.field);
    const variant = typeof value === "string" ? decl.variants.options[value] : undefined;
    if (!variant) throw new ApiError("internal_error", `${decl.id}: no variant for ${decl.variants.field}=${JSON.stringify(value)}.`);
    return variant;
  };
  const variantMissing = (v: HeldVariant<Static<S>, Settings>, set: ReadonlySet<string>, config?: Config): string | undefined => {
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
    const declFor = (query: JsonObject): HeldAction<Static<S>, Settings> => ({ ...action, ...(variantOf(query).actions?.[name] ?? {}) });
    const hasRef = refCheck(action.needs);
    const refusal = (record: StoredRecordView) => {
      const needs = action.needs!;
      const message = typeof needs.refusal === "string" ? needs.refusal : needs.refusal(view<S>(record));
      return invalidRequest([{ path: "/record_id", message }], needs.message);
    };
    const creditsOf = (cost: ActionCost | undefined) => creditsFor((cost?.perCall ?? 0) + (cost?.maxMetered ?? 0));
    const allCosts = [action.cost, ...Object.values(decl.variants?.options ?? {}).map((v) => v.actions?.[name]?.cost)];
    const hasRun = action.run !== undefined || Object.values(decl.variants?.options ?? {}).some((v) => v.actions?.[name]?.run);
    actions[name] = {
      name,
      description: action.description,
      mode: action.mode,
      credits: Math.max(...allCosts.map(creditsOf)),
      maxCredits: (query) => creditsOf(declFor(query).cost),
      appliesTo: (record) => hasRef(record.ref) && (action.appliesTo?.(view<S>(record)) ?? true),
      ...(hasRun
        ? {
            async run(base: BaseContext, record: StoredRecordView): Promise<ActionResult> {
              const chosen = declFor(record.query);
              if (!chosen.run) throw new ApiError("internal_error", `${decl.id}: ${name} has no handler for this record.`);
              if (!hasRef(record.ref)) throw refusal(record);
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
  const cap: Capability<Id> = {
    id: decl.id,
    title: decl.title,
    summary: decl.summary,
    // The cost sentence is the cost declaration's own (`basis`): a description never writes a price again.
    description: `${decl.description.trimEnd()} Cost: ${decl.cost.basis}`,
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
    ...(decl.detailFromSource ? { detailFromSource: sourceDetail(decl.detailFromSource, view<S>) } : {}),
    examples: decl.examples.map((e) => ({ title: e.title, body: e.body as JsonObject })),
    ...(update ? { updateExample: update.example } : {}),
  };
  return cap;
}
