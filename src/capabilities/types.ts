/**
 * What the platform sees of a capability: the compiled form `defineCapability`
 * (framework/define.ts) builds from a capability folder's declarations. The search service,
 * catalog, OpenAPI, MCP and the demo read only this; capability folders write declarations
 * (`CapabilityDecl` and its parts in framework/define.ts), never this interface by hand.
 */
import type { TObject } from "@sinclair/typebox";
import type { Config } from "../config.ts";
import type { Violation } from "../errors.ts";
import type { CallCacheWatch } from "../upstream/answer-cache.ts";
import type { PageRoute, UpstreamClient } from "../upstream/types.ts";
import type { BoundedCache, IndexOptions } from "./framework/cache.ts";
import type { Meter } from "./framework/costs.ts";

import type { JsonObject, JsonValue, Link } from "../json.ts";

export type { JsonObject, JsonValue, Link } from "../json.ts";

/** Paging kinds of spec 3.2. */
export type PagingKind = "single" | "local" | "page" | "offset" | "token";

/** A filter of the execute envelope (spec 2.3). `token` is the provider's own and never leaves Quarry. */
export interface Filter {
  id: string;
  label: string;
  group: string;
  /** Private provider data that applies the filter (e.g. SerpApi's shoprs); stripped from answers. */
  token?: string;
}

/** A result as the adapter produces it; the service assigns its `record_id`. */
export interface RecordDraft {
  /** The public summary: `title` required, `url`/`snippet` usual, capability keys as spec 4.6. */
  summary: { title: string; url?: string; snippet?: string } & JsonObject;
  /** Private provider data needed for record actions (ids); never sent to the client. */
  ref?: JsonObject;
  /**
   * Detail stored at search time ("stored" details); served free by `details`. A capability with
   * `detailFromSource` leaves it out and keeps its page's `source` instead.
   */
  detail?: JsonObject;
  /** Links returned with the stored detail. */
  links?: Link[];
}

/** One slice of results, as a source adapter returns it (costs are the framework's business). */
export interface SourcePage {
  records: RecordDraft[];
  /** Cursor for the next slice (page number, offset or token); null when the source has no more. */
  next: JsonValue;
  notes?: string[];
  filters?: Filter[];
  /** Units the provider reports this answer cost (Serper's `credits`), for a `perUnit` cost. */
  units?: number;
  /**
   * The provider's body this page was mapped from, as text, for a capability with
   * `detailFromSource`: stored with the page's records, their `details` mapped from it when asked
   * (docs/architecture.md, "Stored details from the source").
   */
  source?: string;
}

/** A slice as the service gets it: the source's page plus what it costs. */
export interface SearchPage extends SourcePage {
  /** Credits this call costs (ceil(USD / $0.001)). */
  credits: number;
  /** Provider cost in USD, for the ledger. */
  costUsd?: number;
}

export interface ActionResult {
  detail: JsonValue;
  links: Link[];
  credits: number;
  costUsd?: number;
  /** Every provider request of the action was answered from Quarry's answer cache (charged 0). */
  fromCache?: true;
}

/** Loads an index outside any one request: with the process's upstream client and its own deadline. */
export type IndexLoader<T> = (io: { upstream: UpstreamClient; signal: AbortSignal }) => Promise<T>;

/** Everything a capability may use while it runs. */
export interface CapabilityContext<Settings = unknown> {
  upstream: UpstreamClient;
  /** Aborts at the capability's deadline. */
  signal: AbortSignal;
  now(): Date;
  /** The deployment's configuration (a capability reads its own settings through `settings`). */
  config: Config;
  /** The capability's settings, parsed once from the environment by its `settings` declaration. */
  settings: Settings;
  /** Counts USD of flows of several provider requests (bounded by the cost's `maxMetered`). */
  meter: Meter;
  /** A bounded cache shared by the process (geocoding, ticker tables, chapters). */
  cache: BoundedCache;
  /** A loaded index (framework/cache.ts, Indexes), loaded with its own deadline. */
  index<T extends object>(name: string, options: IndexOptions & { loadTimeoutMs?: number }, load: IndexLoader<T>): Promise<T>;
  /** On `more` and `update`: the search's filters as last answered, with their private tokens. */
  filters: readonly Filter[];
  /**
   * Tells a caller that follows the call (an MCP progressToken) a step it would not see otherwise
   * ("page fetched"); provider answers are told already. Absent when nobody follows.
   */
  progress?: (step: string) => void;
  /**
   * What this call's provider requests found in Quarry's answer cache (upstream/answer-cache.ts),
   * when the capability caches answers: a call answered wholly from it is charged 0.
   */
  answers?: CallCacheWatch;
  /** Where pages read by address are fetched from, when the deployment installed a route (upstream/types.ts, PageRoute). */
  pageRoute?: PageRoute;
}

/** What the engine needs to build a context; the service supplies it per call. */
export type BaseContext = Omit<CapabilityContext, "settings" | "meter">;

/** A record as stored, handed to record actions. */
export interface StoredRecordView {
  summary: JsonObject;
  ref: JsonObject | null;
  detail: JsonObject | null;
  /** The query the record was found under (an `update` since does not change it). */
  query: JsonObject;
}

/** The stored search as `update` rules and merges see it. */
export interface SessionView {
  query: JsonObject;
  /** The filters of the search's last answer, tokens included. */
  filters: readonly Filter[];
}

/** A record action as the platform runs it. */
export interface RuntimeAction {
  name: string;
  description: string;
  /** `stored`: served from the search-time detail; `fetched`: first call asks the provider, then cached. */
  mode: "stored" | "fetched";
  /** Worst-case credits of a first (uncached) call, over all variants (inspect). */
  credits: number;
  /** Worst-case credits of a first call on a record of a search of `query`. */
  maxCredits(query: JsonObject): number;
  /**
   * Fetch the action's detail (fetched actions; for stored ones, a free look-up of a detail that was
   * not stored). Absent: a stored action without a stored detail is `410 session_expired`.
   */
  run?(ctx: BaseContext, record: StoredRecordView): Promise<ActionResult>;
  /** Whether the action can run on the record (its handler would not refuse it for what it lacks). */
  appliesTo(record: StoredRecordView): boolean;
}

/** Where a capability's availability stands in a deployment. */
export interface Availability {
  /** The variable whose absence makes the whole capability unavailable (every variant). */
  missing?: string;
  /** Available, but some variants are not: says which and why. */
  partial?: string;
}

/** One capability as the platform runs it. */
export interface Capability<Id extends string = string> {
  /** `topic.verb`, as spec 4.6 names it; the registry's key (checked by the compiler: registry.ts). */
  id: Id;
  title: string;
  /** One line for the catalog. */
  summary: string;
  /** A paragraph for inspect. */
  description: string;
  topic: string;
  /** The request schema (TypeBox, `additionalProperties: false`) that validates execute bodies and update params. */
  schema: TObject;
  /** The schema as published (inspect, OpenAPI): `schema` plus the rules JSON Schema can say. */
  publishedSchema: JsonObject;
  /**
   * The capability's own record keys (spec 4.6), beside RecordSummary's; required where the spec says
   * "always". Published as the OpenAPI component `RecordSummary.<id>`.
   */
  recordKeys: TObject;
  paging: PagingKind;
  /** Server-side deadline of one execute (15 s or 40 s). */
  deadlineMs: number;
  /**
   * How long an answer of its providers may be served again for an identical request (Quarry's answer
   * cache: upstream/answer-cache.ts), free; 0 where a fresh answer matters.
   */
  cacheTtlMs: number;
  typicalCredits: number;
  /** How the cost is computed, for inspect's `cost.basis`. */
  costBasis: string;
  /** The rules' sentences (inspect and docs). */
  ruleTexts: string[];
  /**
   * Where availability stands with these variables set. With `config`, keys that depend on the
   * capability's settings count too (the service and the catalog pass it).
   */
  availability(setVariables: ReadonlySet<string>, config?: Config): Availability;
  /** Parse the capability's settings from `config` now: a bad value stops the start instead of a first call. */
  checkSettings(config: Config): void;
  /** The variable whose absence makes this query's variant unavailable, if any. */
  missingKeyFor(setVariables: ReadonlySet<string>, query: JsonObject, config?: Config): string | undefined;
  offersUpdate: boolean;
  /** How `update` treats params when it is not the default merge. */
  updateRule?: string;
  /** Fields accepted only in `update` params (refused at execute). */
  updateOnly: readonly string[];
  /**
   * Top-level fields whose values only the source can check (a place name that must geocode, a
   * reference that must exist): a valid body may still be refused `400` at these fields, after a
   * provider call, with nothing charged. Said in inspect's description; the fuzzer allows exactly this.
   */
  sourceChecked: readonly string[];
  /** Worst-case credits of one search call (reserved before it). */
  maxCredits(query: JsonObject): number;
  /** Results per page (`num`), used by local paging. */
  pageSize(query: JsonObject): number;
  /**
   * Cross-field rules (violations with pointers into the body). `sent`: the fields an update's
   * caller supplied; `session`: the stored search, for update rules that read it.
   */
  checkRules(query: JsonObject, sent?: ReadonlySet<string>, session?: SessionView): Violation[];
  /** Merge update params into the stored query (default: shallow merge, null removes). Returned query is revalidated. */
  mergeUpdate?(stored: JsonObject, params: JsonObject, session: SessionView): JsonObject;
  /** Run one search call: `cursor` is null for the first slice, else a previous `SearchPage.next`. */
  search(ctx: BaseContext, query: JsonObject, cursor: JsonValue): Promise<SearchPage>;
  /** Record actions by name, in the order they are listed. */
  actions: Readonly<Record<string, RuntimeAction>>;
  /** A stored record's detail mapped from its page's `source`, or null when the source does not hold it. Pure. */
  detailFromSource?(source: string, record: StoredRecordView): { detail: JsonObject; links: Link[] } | null;
  /** Valid example bodies for inspect (the demo's recorded data answers them). */
  examples: { title: string; body: JsonObject }[];
  /** Params of an `update` of `examples[0]`'s search the demo's recordings answer; present exactly when `offersUpdate`. */
  updateExample?: { title: string; params: JsonObject };
}

/** The names of a capability's record actions, in order. */
export function actionNames(cap: Pick<Capability, "actions">): string[] {
  return Object.keys(cap.actions);
}
