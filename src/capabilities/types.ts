/**
 * What a capability is: its schema, paging kind, costs, record actions, and the glue that turns a
 * validated query into records through pure request/response mappers and the upstream client.
 */
import type { TObject } from "@sinclair/typebox";
import type { Violation } from "../errors.ts";
import type { UpstreamClient } from "../upstream/types.ts";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Paging kinds of spec 3.2. */
export type PagingKind = "single" | "local" | "page" | "offset" | "token";

export interface Link {
  label: string;
  url: string;
}

export interface Filter {
  id: string;
  label: string;
  group: string;
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

/** One slice of results from the source. */
export interface SearchPage {
  records: RecordDraft[];
  /** Cursor for the next slice (page number, offset or token); null when the source has no more. */
  next: JsonValue;
  /** Credits this call actually costs (ceil(provider cost / $0.001)); never above maxCredits. */
  credits: number;
  /** Provider cost in USD, for the ledger. */
  costUsd?: number;
  notes?: string[];
  filters?: Filter[];
  /**
   * The provider's body this page was mapped from, as text (UpstreamResponse.text), for a
   * capability with `detailFromSource`: it is stored with the page's records at search time and
   * their `details` are mapped from it when asked, so the mapped detail is neither built nor
   * written on the request path (docs/architecture.md, "Stored details from the source").
   */
  source?: string;
}

export interface ActionResult {
  detail: JsonValue;
  links: Link[];
  credits: number;
  costUsd?: number;
}

/** Everything a capability may use while it runs. */
export interface CapabilityContext {
  upstream: UpstreamClient;
  /** Aborts at the capability's deadline. */
  signal: AbortSignal;
  now(): Date;
}

export interface RecordActionDef {
  name: string;
  description: string;
  /** `stored`: served from the search-time detail; `fetched`: first call asks the provider, then cached. */
  mode: "stored" | "fetched";
  /** Worst-case credits of a first (uncached) call. */
  credits: number;
}

/** A record as stored, handed to record actions. */
export interface StoredRecordView {
  summary: JsonObject;
  ref: JsonObject | null;
  detail: JsonObject | null;
  query: JsonObject;
}

/** One capability. `Q` is the validated request body with defaults applied. */
export interface Capability<Q extends JsonObject = JsonObject> {
  id: string;
  title: string;
  /** One line for the catalog. */
  summary: string;
  /** A paragraph for inspect. */
  description: string;
  topic: string;
  /** The request schema (TypeBox, `additionalProperties: false`); drives validation, inspect, OpenAPI, MCP. */
  schema: TObject;
  /**
   * The capability's own record keys (spec 4.6), beside RecordSummary's `record_id`, `title`, `url`
   * and `snippet`; required where the spec says "always". Published as the OpenAPI component
   * `RecordSummary.<id>` (optional there, "Always present." in the description, extra keys allowed:
   * spec 9); test/record-keys.e2e.test.ts holds the records mapped from every recording to exactly
   * these keys, the required ones present.
   */
  recordKeys: TObject;
  paging: PagingKind;
  /** Server-side deadline of one execute (15 s or 40 s). */
  deadlineMs: number;
  typicalCredits: number;
  /** How the cost is computed, for inspect's `cost.basis`. */
  costBasis: string;
  /** Environment variables whose absence makes the capability unavailable (503 capability_unavailable). */
  requiredKeys: string[];
  /** Whether search-scope `update` is offered. */
  offersUpdate: boolean;
  /** Worst-case credits of one search call (reserved before it). */
  maxCredits(query: Q): number;
  /** Results per page (`num`), used by local paging. */
  pageSize(query: Q): number;
  /**
   * Cross-field rules the schema cannot express; paths are JSON pointers into the body. `sent` names
   * the fields the caller supplied when that is not all of them (an `update`'s params, merged into
   * the stored query): a violation should then point at a field the caller sent where one of the
   * fields involved is.
   */
  checkRules?(query: Q, sent?: ReadonlySet<string>): Violation[];
  /** Merge update params into the stored query (default: shallow merge). Returned query is revalidated. */
  mergeUpdate?(stored: Q, params: JsonObject): JsonObject;
  /** How `update` treats params, for inspect, when it is not the default merge (say so with `mergeUpdate`). */
  updateRule?: string;
  /** Run one search call: `cursor` is null for the first slice, else a previous `SearchPage.next`. */
  search(ctx: CapabilityContext, query: Q, cursor: JsonValue): Promise<SearchPage>;
  recordActions: RecordActionDef[];
  /**
   * A stored record's detail mapped from its page's `source` (SearchPage.source), or null when the
   * source does not hold it (the record then falls back to `runAction`, or `410 session_expired`).
   * Pure: no I/O, no charge.
   */
  detailFromSource?(source: string, record: StoredRecordView): { detail: JsonObject; links: Link[] } | null;
  /** Fetch a record action from the provider (fetched details, or re-lookup of a missing stored one). */
  runAction?(ctx: CapabilityContext, action: string, record: StoredRecordView): Promise<ActionResult>;
  /** Valid example bodies for inspect (the demo's recorded data answers them). */
  examples: { title: string; body: JsonObject }[];
  /**
   * Params of a follow-up `update` of `examples[0]`'s search that the demo's recorded data answers
   * (the demo and its check use it). Present exactly when `offersUpdate` (a registry test checks).
   */
  updateExample?: { title: string; params: JsonObject };
}
