/**
 * What every search call shares: finding the capability (404), checking it is enabled (403) and
 * available for this query (503), validating a query (schema with defaults, then the capability's
 * rules), building the capability's context, running a slice under the deadline, turning a page
 * into record rows, and the session writes that go with a follow-up.
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import type { BoundedCache, Indexes } from "../capabilities/framework/cache.ts";
import type { Registry } from "../capabilities/registry.ts";
import type {
  BaseContext,
  Capability,
  Filter,
  JsonObject,
  JsonValue,
  SearchPage,
  SessionView,
  StoredRecordView,
} from "../capabilities/types.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Billing } from "../credits/billing.ts";
import { ApiError, type CallOrigin, ClientGone, invalidRequest, pointer, sessionExpired as sessionExpiredError, type Violation } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import { type CachedAction, type CommitOp, MAX_SESSION_RECORDS, type RecordRow, type SessionRow, type Store } from "../store/types.ts";
import { didYouMean } from "../suggest.ts";
import { whileClientWaits } from "../upstream/client.ts";
import { type AnswerCache, CallCacheWatch } from "../upstream/answer-cache.ts";
import { reportingSteps } from "../upstream/progress.ts";
import { DeadlineSignals } from "../upstream/deadlines.ts";
import type { UpstreamClient } from "../upstream/types.ts";
import { isObject, validate } from "../validation.ts";
import { DemoRecordings } from "./demo-recordings.ts";
import { queryAt, type SessionState, stateJson, stateOf } from "./session-state.ts";

export interface SearchDeps {
  store: Store;
  registry: Registry;
  config: Config;
  accounts: AccountService;
  billing: Billing;
  upstream: UpstreamClient;
  ids: IdGenerator;
  clock: Clock;
  /** The process's bounded cache and loaded indexes, handed to capabilities through their context. */
  cache: BoundedCache;
  indexes: Indexes;
  /** Quarry's cache of provider answers (upstream/answer-cache.ts). */
  answers: AnswerCache;
}

/** Where hints send a caller for the catalog, over REST and MCP alike. */
export const THE_CATALOG = "the catalog (GET /v1/catalog; over MCP the discover tool)";

/**
 * One hint for every unknown id, whether it never existed, was swept, or is another account's: the
 * answer must not tell them apart.
 */
export const UNKNOWN_ID_HINT =
  "Use a search_id or record_id from an answer to this account's own calls; a search expires 24 hours after its last use and is later removed. Execute again for new ids.";

/** Refuse a page that would take a search past MAX_SESSION_RECORDS (inside the billed work: released, not charged). */
export function assertRoom(from: number, count: number): void {
  if (from + count > MAX_SESSION_RECORDS) {
    throw invalidRequest([
      { path: "/action", message: `this search holds its maximum of ${MAX_SESSION_RECORDS} records; execute a new search to go on` },
    ]);
  }
}

export class SessionWork {
  /** Calls starting within a few ms share a deadline signal (upstream/deadlines.ts). */
  private readonly deadlines = new DeadlineSignals();
  private readonly nowDate = (): Date => new Date(this.deps.clock.now());

  constructor(readonly deps: SearchDeps) {}

  /** The capability, or 404 capability_unknown. */
  capability(id: string): Capability {
    const cap = Object.hasOwn(this.deps.registry, id) ? this.deps.registry[id] : undefined;
    if (!cap) {
      throw new ApiError("capability_unknown", `No capability "${id}"${didYouMean(id, Object.keys(this.deps.registry))}.`, {
        hint: `The capabilities of this deployment are listed in ${THE_CATALOG}.`,
      });
    }
    return cap;
  }

  /** 403 when the plan does not enable it, 503 when no variant of it is available here. */
  assertUsable(caller: Caller, cap: Capability): void {
    if (!this.deps.accounts.isEnabled(caller, cap.id)) {
      throw this.deps.accounts.disabledError(caller, cap.id, `Upgrade the plan, or use a capability listed as enabled in ${THE_CATALOG}.`);
    }
    const { missing } = cap.availability(this.deps.config.setVariables, this.deps.config);
    if (missing) throw unavailable(cap, missing);
  }

  /** 503 when the variant this query selects is unavailable here (e.g. social microblog without its key). */
  assertQueryAvailable(cap: Capability, query: JsonObject): void {
    const missing = cap.missingKeyFor(this.deps.config.setVariables, query, this.deps.config);
    if (missing) throw unavailable(cap, missing, query);
  }

  /** Validate an execute body (schema with defaults, update-only fields, then cross-field rules). */
  validateQuery(cap: Capability, body: unknown): JsonObject {
    if (!isObject(body)) throw invalidRequest([{ path: "", message: "must be a JSON object" }]);
    const violations: Violation[] = cap.updateOnly
      .filter((f) => body[f] !== undefined)
      .map((f) => ({ path: pointer(f), message: `${f} is accepted only in update (send it in the params of a follow-up update of this search)` }));
    violations.push(...this.queryViolations(cap, body, ""));
    if (violations.length > 0) throw invalidRequest(violations);
    return body as JsonObject;
  }

  /**
   * Schema violations of a query (defaults applied in place), then its cross-field rules if it has
   * none. `sent`: the fields the caller supplied, when the query also holds stored ones (update).
   */
  queryViolations(cap: Capability, body: Record<string, unknown>, at: string, sent?: ReadonlySet<string>, session?: SessionView): Violation[] {
    const violations: Violation[] = validate(cap.schema, body, at);
    if (violations.length === 0) {
      for (const v of cap.checkRules(body as JsonObject, sent, session)) violations.push({ path: at + v.path, message: v.message });
    }
    return violations;
  }

  /**
   * What a capability gets for one call: the upstream client (bound to the caller's presence, so a
   * call whose caller has gone starts no provider request), the call's deadline, the clock, the
   * configuration, the bounded cache and indexes, and the search's filters.
   */
  context(cap: Capability, origin: CallOrigin, filters: readonly Filter[] = []): BaseContext & { demo?: DemoRecordings } {
    const gone = origin.clientGone;
    // Quarry's answer cache (upstream/answer-cache.ts), for capabilities that declare a time to live.
    const answers = cap.cacheTtlMs > 0 && this.deps.config.answerCache.enabled ? new CallCacheWatch() : undefined;
    let upstream = answers === undefined ? this.deps.upstream : this.deps.answers.client(this.deps.upstream, cap.cacheTtlMs, answers, origin.fresh === true);
    if (gone !== undefined) upstream = whileClientWaits(upstream, gone);
    // A caller following the call (an MCP progressToken) is told each provider answer as a step.
    if (origin.progress !== undefined) upstream = reportingSteps(upstream, origin.progress);
    // The offline demo watches which recordings answered the call (demo-recordings.ts).
    const demo = this.deps.config.demo ? new DemoRecordings() : undefined;
    if (demo !== undefined) upstream = demo.watch(upstream);
    const { indexes, upstream: processUpstream } = this.deps;
    return {
      ...(demo === undefined ? {} : { demo }),
      upstream,
      signal: this.deadlines.signal(cap.deadlineMs),
      now: this.nowDate,
      config: this.deps.config,
      cache: this.deps.cache,
      index: (name, options, load) =>
        indexes.get(name, options, () => load({ upstream: processUpstream, signal: AbortSignal.timeout(options.loadTimeoutMs ?? 60_000) })),
      filters,
      ...(origin.progress === undefined ? {} : { progress: origin.progress }),
      ...(answers === undefined ? {} : { answers }),
    };
  }

  /** Run the adapter under the deadline; unexpected adapter failures are provider errors, not 500s. */
  async runSearch(cap: Capability, query: JsonObject, cursor: JsonValue, origin: CallOrigin, filters?: readonly Filter[]): Promise<SearchPage> {
    const ctx = this.context(cap, origin, filters);
    try {
      const page = await cap.search(ctx, query, cursor);
      const note = ctx.demo?.note();
      return note === undefined ? page : { ...page, notes: [...(page.notes ?? []), note] };
    } catch (err) {
      const failure = asProviderError(err, cap.id, ctx.signal.aborted);
      throw ctx.demo?.failure(failure) ?? failure;
    }
  }

  /**
   * A page's drafts as rows from position `from`. When the capability maps its stored details from
   * the page's source, the first row holds the source and every row points at it.
   */
  records(cap: Capability, searchId: string, accountId: string, page: SearchPage, from: number): RecordRow[] {
    const drafts = page.records;
    assertRoom(from, drafts.length);
    const source = cap.detailFromSource !== undefined && page.source !== undefined ? page.source : undefined;
    const rows: RecordRow[] = drafts.map((d, i) => ({
      id: this.deps.ids.recordId(),
      searchId,
      accountId,
      position: from + i,
      summary: d.summary,
      ref: d.ref ?? null,
      detail: d.detail ?? null,
      links: d.links ?? null,
      actions: {},
      sourceAt: source === undefined ? null : from,
    }));
    if (source !== undefined && rows.length > 0) rows[0]!.source = source;
    return rows;
  }

  /**
   * A record's stored detail: the one written at search time, else mapped from its page's source;
   * null when it has neither (or the source no longer holds it).
   */
  async storedDetail(cap: Capability, record: RecordRow, session: SessionRow): Promise<CachedAction | null> {
    if (record.detail !== null) return { detail: record.detail, links: record.links ?? [] };
    if (record.sourceAt === null || !cap.detailFromSource) return null;
    const source = await this.deps.store.getSource(record.searchId, record.sourceAt);
    if (source === null) return null;
    return cap.detailFromSource(source, recordView(record, session));
  }

  expiry(): number {
    return this.deps.clock.now() + this.deps.config.sessionTtlSeconds * 1000;
  }

  /** A fresh expiry for a session a record action used, written with the action's commit. */
  touch(session: SessionRow): NonNullable<CommitOp["touch"]> {
    return { sessionId: session.id, expiresAt: this.expiry() };
  }

  /**
   * A follow-up's change to its session: the new state (and query, for `update`), the records it
   * adds, a fresh expiry, and the query and state it had before (PostgreSQL puts them back should
   * it have to undo the call).
   */
  sessionUpdate(session: SessionRow, state: SessionState, records: RecordRow[], query?: JsonObject): NonNullable<CommitOp["sessionUpdate"]> {
    return {
      id: session.id,
      ...(query === undefined ? {} : { query }),
      state: stateJson(state),
      expiresAt: this.expiry(),
      records,
      previous: { query: session.query, state: session.state },
    };
  }

  /** The live session of this account, or 404 / 410. */
  async liveSession(caller: Caller, searchId: string): Promise<SessionRow> {
    const session = await this.deps.store.getSession(searchId);
    if (!session || session.accountId !== caller.account.id) {
      throw new ApiError("record_unknown", `No search "${searchId}" for this account.`, { hint: UNKNOWN_ID_HINT });
    }
    if (session.expiresAt <= this.deps.clock.now()) throw sessionExpiredError();
    return session;
  }
}

/** What a capability sees of a stored record (its detail mapping and its record actions), with the query it was found under. */
export function recordView(record: RecordRow, session: SessionRow): StoredRecordView {
  return { summary: record.summary, ref: record.ref, detail: record.detail, query: queryAt(session, record.position) };
}

/** The stored search as update rules see it. */
export function sessionView(session: SessionRow): SessionView {
  return { query: session.query, filters: stateOf(session).filters ?? [] };
}

function unavailable(cap: Capability, missing: string, query?: JsonObject): ApiError {
  const which = query === undefined ? cap.id : `${cap.id} (this request)`;
  return new ApiError("capability_unavailable", `${which} is unavailable: ${missing} is not set in this deployment.`, {
    hint: `Choose another capability or option; ${THE_CATALOG} shows which are available.`,
  });
}

/** Adapter failures that are not ApiErrors (unexpected body shapes) are the provider's fault. */
export function asProviderError(err: unknown, capabilityId: string, timedOut: boolean): unknown {
  if (err instanceof ApiError || err instanceof ClientGone) return err;
  if (timedOut) return new ApiError("provider_timeout", `${capabilityId}: the provider did not answer before the deadline.`);
  return new ApiError("provider_error", `${capabilityId}: the provider's answer could not be read.`, {
    cause: err,
    hint: "The upstream answered in an unexpected shape; nothing was charged.",
  });
}
