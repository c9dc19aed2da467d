/**
 * Execute and follow-up: the spine of a search. One service for REST and MCP.
 *
 * execute: capability → enabled → available → validate → reserve → search under the deadline
 * → session + records + charge committed together → ExecuteResponse.
 * follow-up: `more` (local slice or next provider slice), `update` (merge, revalidate, reset
 * paging, same search_id) and record actions (stored, or fetched once then cached).
 * See docs/architecture.md, "Session paging".
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import { balanceOf } from "../accounts/accounts.ts";
import type { Registry } from "../capabilities/registry.ts";
import type {
  Capability,
  CapabilityContext,
  Filter,
  JsonObject,
  JsonValue,
  Link,
  SearchPage,
  StoredRecordView,
} from "../capabilities/types.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Billing } from "../credits/billing.ts";
import {
  ApiError,
  type CallOrigin,
  ClientGone,
  invalidRequest,
  pointer,
  STORED_DETAIL_GONE,
  sessionExpired,
  unknownRecordAction,
  type Violation,
} from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import {
  type AccountRow,
  type CachedAction,
  type CommitOp,
  MAX_SESSION_RECORDS,
  type RecordRow,
  SessionChanged,
  type SessionRow,
  type Store,
} from "../store/types.ts";
import { DeadlineSignals } from "../upstream/deadlines.ts";
import { whileClientWaits } from "../upstream/client.ts";
import type { UpstreamClient } from "../upstream/types.ts";
import { didYouMean } from "../suggest.ts";
import { isObject, unknownFieldMessage, validate } from "../validation.ts";
import { FollowUpRequestSchema } from "./follow-up-schema.ts";

export const FOLLOW_UP_URL = "/v1/follow-up";

/** Refuse a page that would take a search past MAX_SESSION_RECORDS (inside the billed work: released, not charged). */
export function assertRoom(from: number, count: number): void {
  if (from + count > MAX_SESSION_RECORDS) {
    throw invalidRequest([
      {
        path: "/action",
        message: `this search holds its maximum of ${MAX_SESSION_RECORDS} records; execute a new search to go on`,
      },
    ]);
  }
}

export interface Balance {
  used: number;
  cap: number;
  period_end: string | null;
}

export interface ExecuteResponse {
  search_id: string;
  capability: string;
  results: JsonObject[];
  result_count: number;
  has_more: boolean;
  filters?: Filter[];
  next: { url: string; actions: string[]; example: JsonObject | null };
  record_actions: string[];
  notes?: string[];
  charged_credits: number;
  balance: Balance;
}

export interface RecordFollowUpResponse {
  record_id: string;
  action: string;
  detail: JsonValue;
  links: Link[];
  cached?: boolean;
  charged_credits: number;
  balance: Balance;
}

/** Paging state kept in the session row. Positions number every record the session ever got. */
type SessionState = {
  /** Position the next stored record gets. */
  nextPosition: number;
  /** First position of the current result set (after the last execute/update). */
  start: number;
  /** Records of the current set already returned (local paging) or stored (cursor paging). */
  served: number;
  /** Local paging: size of the whole current set. */
  total?: number;
  /** Cursor paging: where the source continues; null when it has no more. */
  cursor?: JsonValue;
  notes?: string[];
  filters?: Filter[];
};

export class SearchService {
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Calls starting within a few ms share a deadline signal (upstream/deadlines.ts). */
  private readonly deadlines = new DeadlineSignals();
  private readonly nowDate = (): Date => new Date(this.deps.clock.now());

  constructor(
    private readonly deps: {
      store: Store;
      registry: Registry;
      config: Config;
      accounts: AccountService;
      billing: Billing;
      upstream: UpstreamClient;
      ids: IdGenerator;
      clock: Clock;
    },
  ) {}

  /** The capability, or 404 capability_unknown. */
  capability(id: string): Capability<JsonObject> {
    const cap = Object.hasOwn(this.deps.registry, id) ? this.deps.registry[id] : undefined;
    if (!cap) {
      throw new ApiError("capability_unknown", `No capability "${id}"${didYouMean(id, Object.keys(this.deps.registry))}.`, {
        hint: `The capabilities of this deployment are listed in ${THE_CATALOG}.`,
      });
    }
    return cap;
  }

  /** The variable that makes a capability unavailable here, if any. */
  missingKey(cap: Capability<JsonObject>): string | undefined {
    return cap.requiredKeys.find((v) => !this.deps.config.setVariables.has(v));
  }

  private assertUsable(caller: Caller, cap: Capability<JsonObject>): void {
    if (!this.deps.accounts.isEnabled(caller, cap.id)) {
      throw this.deps.accounts.disabledError(caller, cap.id, `Upgrade the plan, or use a capability listed as enabled in ${THE_CATALOG}.`);
    }
    const missing = this.missingKey(cap);
    if (missing) {
      throw new ApiError("capability_unavailable", `${cap.id} is unavailable: ${missing} is not set in this deployment.`, {
        hint: `Choose another capability; ${THE_CATALOG} shows which are available.`,
      });
    }
  }

  /** Validate a whole query (schema with defaults, then the capability's cross-field rules). */
  private validateQuery(cap: Capability<JsonObject>, body: unknown, at = ""): JsonObject {
    if (!isObject(body)) throw invalidRequest([{ path: at, message: "must be a JSON object" }]);
    const violations = this.queryViolations(cap, body, at);
    if (violations.length > 0) throw invalidRequest(violations);
    return body as JsonObject;
  }

  /**
   * Schema violations of a query (defaults applied in place), then its cross-field rules if it has
   * none. `sent`: the fields the caller supplied, when the query also holds stored ones (update).
   */
  private queryViolations(
    cap: Capability<JsonObject>,
    body: Record<string, unknown>,
    at: string,
    sent?: ReadonlySet<string>,
  ): Violation[] {
    const violations: Violation[] = validate(cap.schema, body, at);
    if (violations.length === 0 && cap.checkRules) {
      for (const v of cap.checkRules(body as JsonObject, sent)) violations.push({ path: at + v.path, message: v.message });
    }
    return violations;
  }

  /**
   * What an adapter gets for one call: the upstream client (bound to the caller's presence, so a
   * call whose caller has gone starts no provider request), the call's deadline, the clock.
   */
  private context(cap: Capability<JsonObject>, origin: CallOrigin): CapabilityContext {
    const gone = origin.clientGone;
    const upstream = gone === undefined ? this.deps.upstream : whileClientWaits(this.deps.upstream, gone);
    return { upstream, signal: this.deadlines.signal(cap.deadlineMs), now: this.nowDate };
  }

  /** Run the adapter under the deadline; unexpected adapter failures are provider errors, not 500s. */
  private async runSearch(
    cap: Capability<JsonObject>,
    query: JsonObject,
    cursor: JsonValue,
    origin: CallOrigin,
  ): Promise<SearchPage> {
    const ctx = this.context(cap, origin);
    try {
      return await cap.search(ctx, query, cursor);
    } catch (err) {
      throw asProviderError(err, cap.id, ctx.signal.aborted);
    }
  }

  /**
   * A page's drafts as rows from position `from`. When the capability maps its stored details from
   * the page's source, the first row holds the source and every row points at it.
   */
  private records(cap: Capability<JsonObject>, searchId: string, accountId: string, page: SearchPage, from: number): RecordRow[] {
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
  private async storedDetail(cap: Capability<JsonObject>, record: RecordRow, session: SessionRow): Promise<CachedAction | null> {
    if (record.detail !== null) return { detail: record.detail, links: record.links ?? [] };
    if (record.sourceAt === null || !cap.detailFromSource) return null;
    const source = await this.deps.store.getSource(record.searchId, record.sourceAt);
    if (source === null) return null;
    return cap.detailFromSource(source, recordView(record, session));
  }

  private expiry(): number {
    return this.deps.clock.now() + this.deps.config.sessionTtlSeconds * 1000;
  }

  /** A fresh expiry for a session a record action used, written with the action's commit. */
  private touch(session: SessionRow): NonNullable<CommitOp["touch"]> {
    return { sessionId: session.id, expiresAt: this.expiry() };
  }

  /**
   * A follow-up's change to its session: the new state (and query, for `update`), the records it
   * adds, a fresh expiry, and the query and state it had before (PostgreSQL puts them back should
   * it have to undo the call).
   */
  private sessionUpdate(
    session: SessionRow,
    state: SessionState,
    records: RecordRow[],
    query?: JsonObject,
  ): NonNullable<CommitOp["sessionUpdate"]> {
    return {
      id: session.id,
      ...(query === undefined ? {} : { query }),
      state: stateJson(state),
      expiresAt: this.expiry(),
      records,
      previous: { query: session.query, state: session.state },
    };
  }

  /** Build the state and the visible slice for a fresh result set (execute or update). */
  private freshSet(cap: Capability<JsonObject>, query: JsonObject, page: SearchPage, rows: RecordRow[], start: number) {
    const local = cap.paging === "local";
    const visible = local ? rows.slice(0, cap.pageSize(query)) : rows;
    const state: SessionState = {
      nextPosition: start + rows.length,
      start,
      served: visible.length,
      ...(local ? { total: rows.length } : { cursor: cap.paging === "single" ? null : (page.next ?? null) }),
      ...(page.notes?.length ? { notes: page.notes } : {}),
      ...(page.filters?.length ? { filters: page.filters } : {}),
    };
    return { state, visible };
  }

  async execute(caller: Caller, capabilityId: string, body: unknown, origin: CallOrigin): Promise<ExecuteResponse> {
    const cap = this.capability(capabilityId);
    this.assertUsable(caller, cap);
    const query = this.validateQuery(cap, body);
    const searchId = this.deps.ids.searchId();
    const billed = await this.deps.billing.run(
      caller,
      { capability: cap.id, operation: "execute", maxCredits: cap.maxCredits(query), origin, needsCredit: true },
      async () => {
        const page = await this.runSearch(cap, query, null, origin);
        const rows = this.records(cap, searchId, caller.account.id, page, 0);
        const { state, visible } = this.freshSet(cap, query, page, rows, 0);
        const now = this.deps.clock.now();
        const session: SessionRow = {
          id: searchId,
          accountId: caller.account.id,
          capability: cap.id,
          query,
          state: stateJson(state),
          expiresAt: this.expiry(),
          createdAt: now,
        };
        return {
          result: { state, visible },
          credits: page.credits,
          ...(page.costUsd === undefined ? {} : { costUsd: page.costUsd }),
          persist: { newSession: { session, records: rows } },
        };
      },
    );
    return this.executeResponse(cap, searchId, billed.result.state, billed.result.visible, billed.charged, billed.account);
  }

  private executeResponse(
    cap: Capability<JsonObject>,
    searchId: string,
    state: SessionState,
    visible: RecordRow[],
    charged: number,
    account: AccountRow,
  ): ExecuteResponse {
    const hasMore = hasMoreOf(cap, state);
    const results = visible.map((r) => ({ record_id: r.id, ...r.summary }));
    const actions = searchActions(cap);
    // An empty page with nothing after it gets no example: the one body valid then, `update` with no
    // params, would run the same search again (billed where execute is) and, followed, loop for ever.
    // A note says what to do instead (docs/architecture.md, "next.example").
    let example: JsonObject | null = null;
    let notes = state.notes;
    if (hasMore) example = { search_id: searchId, action: "more" };
    else if (results.length > 0 && cap.recordActions.length > 0) {
      example = { record_id: results[0]!.record_id, action: cap.recordActions[0]!.name };
    } else if (results.length === 0) notes = [...(notes ?? []), nothingMoreNote(cap)];
    return {
      search_id: searchId,
      capability: cap.id,
      results,
      result_count: results.length,
      has_more: hasMore,
      ...(state.filters ? { filters: state.filters } : {}),
      next: { url: FOLLOW_UP_URL, actions, example },
      record_actions: cap.recordActions.map((a) => a.name),
      ...(notes ? { notes } : {}),
      charged_credits: charged,
      balance: balanceOf(account),
    };
  }

  /** Serialize follow-ups on one session inside this instance (paging state is read-modify-write). */
  private async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(fn);
    this.locks.set(key, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === run) this.locks.delete(key);
    }
  }

  async followUp(
    caller: Caller,
    body: unknown,
    origin: CallOrigin,
  ): Promise<ExecuteResponse | RecordFollowUpResponse> {
    if (!isObject(body)) throw invalidRequest([{ path: "", message: "must be a JSON object" }]);
    const violations = validate(FollowUpRequestSchema, body);
    const hasSearch = body.search_id !== undefined;
    const hasRecord = body.record_id !== undefined;
    if (hasSearch && hasRecord) violations.push({ path: "/record_id", message: "give exactly one of search_id or record_id, not both" });
    if (!hasSearch && !hasRecord) violations.push({ path: "", message: "give exactly one of search_id or record_id" });
    if (violations.length > 0) throw invalidRequest(violations);
    const action = body.action as string;
    const params = body.params as JsonObject | undefined;
    // Queued per account and id: another account's call on the same id (answered 404) must not wait
    // behind the owner's, which would tell it the id exists and is in use.
    const lockKey = (id: string) => `${caller.account.id} ${id}`;
    if (hasSearch) {
      const id = body.search_id as string;
      return this.withLock(lockKey(id), () => againIfChanged(() => this.searchFollowUp(caller, id, action, params, origin)));
    }
    const id = body.record_id as string;
    return this.withLock(lockKey(id), () => againIfChanged(() => this.recordFollowUp(caller, id, action, params, origin)));
  }

  private async liveSession(caller: Caller, searchId: string): Promise<SessionRow> {
    const session = await this.deps.store.getSession(searchId);
    if (!session || session.accountId !== caller.account.id) {
      throw new ApiError("record_unknown", `No search "${searchId}" for this account.`, { hint: UNKNOWN_ID_HINT });
    }
    if (session.expiresAt <= this.deps.clock.now()) throw sessionExpired();
    return session;
  }

  private async searchFollowUp(
    caller: Caller,
    searchId: string,
    action: string,
    params: JsonObject | undefined,
    origin: CallOrigin,
  ): Promise<ExecuteResponse> {
    const session = await this.liveSession(caller, searchId);
    const cap = this.capability(session.capability);
    this.assertUsable(caller, cap);
    const state = session.state as unknown as SessionState;
    if (action === "more") {
      // Both problems at once, so one correction is enough.
      const violations = [];
      if (cap.paging === "single") violations.push({ path: "/action", message: `${cap.id} returns a single result; more is not offered` });
      if (hasKeys(params)) violations.push({ path: "/params", message: "more takes no params (params are for update)" });
      if (violations.length > 0) throw invalidRequest(violations);
      return cap.paging === "local"
        ? this.moreLocal(caller, cap, session, state, origin)
        : this.moreFromSource(caller, cap, session, state, origin);
    }
    if (action === "update") {
      if (!cap.offersUpdate) throw invalidRequest([{ path: "/action", message: `${cap.id} does not offer update` }]);
      return this.update(caller, cap, session, state, params ?? {}, origin);
    }
    const known = searchActions(cap);
    throw invalidRequest([
      {
        path: "/action",
        message: cap.recordActions.some((a) => a.name === action)
          ? `${action} is a record action; send it with a record_id`
          : `unknown action "${action}" for a search${didYouMean(action, known)}; offered: ${known.join(", ") || "none"}`,
      },
    ]);
  }

  private async moreLocal(
    caller: Caller,
    cap: Capability<JsonObject>,
    session: SessionRow,
    state: SessionState,
    origin: CallOrigin,
  ): Promise<ExecuteResponse> {
    const size = cap.pageSize(session.query);
    const from = state.start + state.served;
    const to = Math.min(from + size, state.start + (state.total ?? 0));
    const visible = to > from ? await this.deps.store.getRecords(session.id, from, to) : [];
    const next: SessionState = { ...state, served: state.served + visible.length };
    const billed = await this.deps.billing.run(
      caller,
      { capability: cap.id, operation: "more", maxCredits: 0, origin },
      async () => ({
        result: null,
        credits: 0,
        persist: { sessionUpdate: this.sessionUpdate(session, next, []) },
      }),
    );
    return this.executeResponse(cap, session.id, next, visible, billed.charged, billed.account);
  }

  private async moreFromSource(
    caller: Caller,
    cap: Capability<JsonObject>,
    session: SessionRow,
    state: SessionState,
    origin: CallOrigin,
  ): Promise<ExecuteResponse> {
    // Past the end: an empty page, free, no provider call.
    const exhausted = state.cursor === null || state.cursor === undefined;
    const billed = await this.deps.billing.run(
      caller,
      { capability: cap.id, operation: "more", maxCredits: exhausted ? 0 : cap.maxCredits(session.query), origin },
      async () => {
        const page: SearchPage = exhausted
          ? { records: [], next: null, credits: 0 }
          : await this.runSearch(cap, session.query, state.cursor ?? null, origin);
        const rows = this.records(cap, session.id, caller.account.id, page, state.nextPosition);
        const next: SessionState = {
          ...state,
          nextPosition: state.nextPosition + rows.length,
          served: state.served + rows.length,
          cursor: page.next ?? null,
          ...(page.notes?.length ? { notes: page.notes } : {}),
          ...(page.filters?.length ? { filters: page.filters } : {}),
        };
        return {
          result: { next, rows },
          credits: page.credits,
          ...(page.costUsd === undefined ? {} : { costUsd: page.costUsd }),
          persist: { sessionUpdate: this.sessionUpdate(session, next, rows) },
        };
      },
    );
    return this.executeResponse(cap, session.id, billed.result.next, billed.result.rows, billed.charged, billed.account);
  }

  private async update(
    caller: Caller,
    cap: Capability<JsonObject>,
    session: SessionRow,
    state: SessionState,
    params: JsonObject,
    origin: CallOrigin,
  ): Promise<ExecuteResponse> {
    // Only request fields may be sent: unknown ones are reported at /params/<key> (they never reach
    // the stored query), together with what is wrong with the query the known ones make.
    const fields = Object.keys(cap.schema.properties);
    const unknown = Object.keys(params).filter((k) => !fields.includes(k));
    const known = unknown.length === 0 ? params : Object.fromEntries(Object.entries(params).filter(([k]) => fields.includes(k)));
    const query = cap.mergeUpdate ? cap.mergeUpdate(session.query, known) : defaultMerge(session.query, known);
    const violations = [
      ...unknown.map((k) => ({ path: pointer("params", k), message: unknownFieldMessage(k, fields) })),
      ...this.queryViolations(cap, query, "/params", new Set(Object.keys(known))),
    ];
    if (violations.length > 0) throw invalidRequest(violations);
    const start = state.nextPosition;
    const billed = await this.deps.billing.run(
      caller,
      { capability: cap.id, operation: "update", maxCredits: cap.maxCredits(query), origin },
      async () => {
        const page = await this.runSearch(cap, query, null, origin);
        const rows = this.records(cap, session.id, caller.account.id, page, start);
        const fresh = this.freshSet(cap, query, page, rows, start);
        return {
          result: fresh,
          credits: page.credits,
          ...(page.costUsd === undefined ? {} : { costUsd: page.costUsd }),
          persist: { sessionUpdate: this.sessionUpdate(session, fresh.state, rows, query) },
        };
      },
    );
    return this.executeResponse(cap, session.id, billed.result.state, billed.result.visible, billed.charged, billed.account);
  }

  private async recordFollowUp(
    caller: Caller,
    recordId: string,
    action: string,
    params: JsonObject | undefined,
    origin: CallOrigin,
  ): Promise<RecordFollowUpResponse> {
    const found = await this.deps.store.getRecord(recordId);
    if (!found || found.record.accountId !== caller.account.id || found.session.accountId !== caller.account.id) {
      throw new ApiError("record_unknown", `No record "${recordId}" for this account.`, { hint: UNKNOWN_ID_HINT });
    }
    const { record, session } = found;
    if (session.expiresAt <= this.deps.clock.now()) throw sessionExpired();
    const cap = this.capability(session.capability);
    this.assertUsable(caller, cap);
    const def = cap.recordActions.find((a) => a.name === action);
    if (!def && searchActions(cap).includes(action)) {
      throw invalidRequest([
        {
          path: "/action",
          message: `${action} is a search action; send it with the search_id of this record's search (${session.id})`,
        },
      ]);
    }
    if (!def) throw unknownRecordAction(cap.id, action, cap.recordActions.map((a) => a.name));
    if (hasKeys(params)) throw invalidRequest([{ path: "/params", message: "record actions take no params (params are for update)" }]);

    const cached = record.actions[action];
    const stored = !cached && def.mode === "stored" ? await this.storedDetail(cap, record, session) : null;
    if (cached || stored) {
      // Served without a provider call: free; the session's life is extended in the same commit. Only
      // the expiry is written: record actions are not serialized with `more` on the session, so
      // writing back the state read above could rewind a page served meanwhile.
      const hit = (cached ?? stored)!;
      const billed = await this.deps.billing.run(
        caller,
        { capability: cap.id, operation: action, maxCredits: 0, origin },
        async () => ({ result: null, credits: 0, persist: { touch: this.touch(session) } }),
      );
      return this.recordResponse(recordId, action, hit.detail, hit.links, true, billed.charged, billed.account);
    }
    if (!cap.runAction) throw sessionExpired(STORED_DETAIL_GONE);
    const runAction = cap.runAction.bind(cap);
    const billed = await this.deps.billing.run(
      caller,
      { capability: cap.id, operation: action, maxCredits: def.credits, origin },
      async () => {
        const ctx = this.context(cap, origin);
        try {
          const out = await runAction(ctx, action, recordView(record, session));
          return {
            result: out,
            credits: out.credits,
            ...(out.costUsd === undefined ? {} : { costUsd: out.costUsd }),
            persist: {
              recordAction: { recordId, action, result: { detail: out.detail, links: out.links } },
              touch: this.touch(session),
            },
          };
        } catch (err) {
          throw asProviderError(err, cap.id, ctx.signal.aborted);
        }
      },
    );
    return this.recordResponse(recordId, action, billed.result.detail, billed.result.links, false, billed.charged, billed.account);
  }

  private recordResponse(
    recordId: string,
    action: string,
    detail: JsonValue,
    links: Link[],
    cached: boolean,
    charged: number,
    account: AccountRow,
  ): RecordFollowUpResponse {
    return { record_id: recordId, action, detail, links, cached, charged_credits: charged, balance: balanceOf(account) };
  }
}

/** What a capability sees of a stored record (its detail mapping and its record actions). */
function recordView(record: RecordRow, session: SessionRow): StoredRecordView {
  return { summary: record.summary, ref: record.ref, detail: record.detail, query: session.query };
}

/**
 * How often a follow-up is tried when its commit keeps losing to other calls on the same search
 * (SessionChanged): the per-search lock serializes follow-ups within this process only, and
 * instances sharing PostgreSQL meet at the commit's compare-and-set. Between tries a random pause
 * (up to 20 ms × the try) keeps two instances' queues on one search from colliding in lockstep.
 */
const FOLLOW_UP_TRIES = 5;

/**
 * Run a follow-up again, from what is stored now, when another call on the same search committed
 * first. The lost try charged nothing (its commit wrote nothing and its hold was released); a
 * provider call it made is not reused: the next try makes its own.
 */
async function againIfChanged<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof SessionChanged) || attempt >= FOLLOW_UP_TRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/** Session state is stored as JSON; its fields are all JSON values. */
function stateJson(state: SessionState): JsonObject {
  return state as unknown as JsonObject;
}

function hasMoreOf(cap: Capability<JsonObject>, state: SessionState): boolean {
  if (cap.paging === "single") return false;
  if (cap.paging === "local") return state.served < (state.total ?? 0);
  return state.cursor !== null && state.cursor !== undefined;
}

/** Search-scope actions a capability accepts (spec 2.5 `next.actions`). */
export function searchActions(cap: Capability<JsonObject>): string[] {
  const actions: string[] = [];
  if (cap.paging !== "single") actions.push("more");
  if (cap.offersUpdate) actions.push("update");
  return actions;
}

/**
 * Whether a follow-up's `params` asks for something. Spec 4.5 makes `params` an optional object used
 * by `update`; an empty one (clients that always send the field) is accepted with any action, while
 * keys sent with `more` or a record action are refused, since nothing would read them.
 */
function hasKeys(params: JsonObject | undefined): boolean {
  if (params === undefined) return false;
  for (const _ in params) return true;
  return false;
}

/** Shallow merge; a null param removes the stored field (its default then applies again). */
function defaultMerge(stored: JsonObject, params: JsonObject): JsonObject {
  const merged: JsonObject = { ...stored };
  for (const [k, v] of Object.entries(params)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

/** Adapter failures that are not ApiErrors (unexpected body shapes) are the provider's fault. */
function asProviderError(err: unknown, capabilityId: string, timedOut: boolean): unknown {
  if (err instanceof ApiError || err instanceof ClientGone) return err;
  if (timedOut) return new ApiError("provider_timeout", `${capabilityId}: the provider did not answer before the deadline.`);
  return new ApiError("provider_error", `${capabilityId}: the provider's answer could not be read.`, {
    cause: err,
    hint: "The upstream answered in an unexpected shape; nothing was charged.",
  });
}

/** The note of an empty page with nothing after it (next.example is null then). */
function nothingMoreNote(cap: Capability<JsonObject>): string {
  return cap.offersUpdate
    ? "Nothing (more) to show for this search. To search for something else, send update with the fields to change, or execute again."
    : "Nothing (more) to show for this search. To search for something else, execute again.";
}

/**
 * One hint for every unknown id, whether it never existed, was swept, or is another account's: the
 * answer must not tell them apart.
 */
const UNKNOWN_ID_HINT =
  "Use a search_id or record_id from an answer to this account's own calls; a search expires 24 hours after its last use and is later removed. Execute again for new ids.";

/** Where hints send a caller for the catalog, over REST and MCP alike. */
const THE_CATALOG = "the catalog (GET /v1/catalog; over MCP the discover tool)";
