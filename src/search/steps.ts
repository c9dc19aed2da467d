/**
 * The steps of a search call, built once per process, each with only the dependencies it uses; a
 * follow-up (paging.ts, update.ts, record-actions.ts) takes them from here. docs/architecture.md,
 * "The request flow", names each step's file.
 */
import type { Availability } from "../catalog/availability.ts";
import type { BoundedCache, Indexes } from "../capabilities/framework/cache.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Billing } from "../credits/billing.ts";
import type { IdGenerator } from "../ids.ts";
import type { SearchStore } from "../store/types.ts";
import type { AnswerCache } from "../upstream/answer-cache.ts";
import type { PageRoute, UpstreamClient } from "../upstream/types.ts";
import { RecordRows } from "./record-rows.ts";
import { type CallWatch, SearchRunner } from "./run-search.ts";
import { SearchSessions } from "./search-sessions.ts";

export interface SearchDeps {
  availability: Availability;
  billing: Billing;
  /** The search sessions and records a call reads (its writes go with the charge, through billing). */
  store: SearchStore;
  config: Config;
  upstream: UpstreamClient;
  ids: IdGenerator;
  clock: Clock;
  /** The process's bounded cache and loaded indexes, handed to capabilities through their context. */
  cache: BoundedCache;
  indexes: Indexes;
  /** Quarry's cache of provider answers (upstream/answer-cache.ts). */
  answers: AnswerCache;
  /** A watch over each call's provider answers, when the deployment installs one (run-search.ts). */
  callWatch?: () => CallWatch;
  /** Where pages read by address are fetched from, when the deployment installs a route (run-search.ts). */
  pageRoute?: PageRoute;
}

export interface SearchSteps {
  /** Which capability, enabled for the caller, available here and for this query (catalog/availability.ts). */
  availability: Availability;
  /** The capability's search or record action under the deadline; its failures as catalog errors (run-search.ts). */
  runner: SearchRunner;
  /** A page's drafts as stored rows; a record's stored detail (record-rows.ts). */
  rows: RecordRows;
  /** The live search or record, and the writes to a session (search-sessions.ts). */
  sessions: SearchSessions;
  /** Reserve, work, commit with the writes (billed-call.ts over credits/billing.ts). */
  billing: Billing;
}

export function searchSteps(deps: SearchDeps): SearchSteps {
  return {
    availability: deps.availability,
    runner: new SearchRunner(deps),
    rows: new RecordRows(deps),
    sessions: new SearchSessions(deps),
    billing: deps.billing,
  };
}
