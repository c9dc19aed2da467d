/**
 * A search session's life: the one lookup of a live search or record of this account (404 for an
 * unknown or another account's id, 410 once expired), its expiry, and the writes a call makes to
 * it (a new session, a follow-up's change, a record action's touch), committed with the charge.
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Capability, JsonObject } from "../capabilities/types.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { ApiError, sessionExpired } from "../errors.ts";
import type { CommitOp, RecordRow, SearchStore, SessionRow } from "../store/types.ts";
import { type SessionState, stateJson } from "./session-state.ts";

/**
 * One hint for every unknown id, whether it never existed, was swept, or is another account's: the
 * answer must not tell them apart.
 */
export const UNKNOWN_ID_HINT =
  "Use a search_id or record_id from an answer to this account's own calls; a search expires 24 hours after its last use and is later removed. Execute again for new ids.";

export class SearchSessions {
  constructor(private readonly deps: { store: Pick<SearchStore, "getSession" | "getRecord" | "getRecords">; clock: Clock; config: Config }) {}

  /** The live search of this account, or 404 / 410. */
  async live(caller: Caller, searchId: string): Promise<SessionRow> {
    const session = await this.deps.store.getSession(searchId);
    if (!session || session.accountId !== caller.account.id) {
      throw new ApiError("record_unknown", `No search "${searchId}" for this account.`, { hint: UNKNOWN_ID_HINT });
    }
    this.assertLive(session);
    return session;
  }

  /** A record of this account with its live search, or 404 / 410. */
  async liveRecord(caller: Caller, recordId: string): Promise<{ record: RecordRow; session: SessionRow }> {
    const found = await this.deps.store.getRecord(recordId);
    if (!found || found.record.accountId !== caller.account.id || found.session.accountId !== caller.account.id) {
      throw new ApiError("record_unknown", `No record "${recordId}" for this account.`, { hint: UNKNOWN_ID_HINT });
    }
    this.assertLive(found.session);
    return found;
  }

  /** The records a search holds at positions from <= position < to (a page served from the session). */
  records(session: SessionRow, from: number, to: number): Promise<RecordRow[]> {
    return to > from ? this.deps.store.getRecords(session.id, from, to) : Promise.resolve([]);
  }

  /** A new search's session row, its expiry from now. */
  created(cap: Capability, searchId: string, caller: Caller, query: JsonObject, state: SessionState): SessionRow {
    return {
      id: searchId,
      accountId: caller.account.id,
      capability: cap.id,
      query,
      state: stateJson(state),
      expiresAt: this.expiry(),
      createdAt: this.deps.clock.now(),
    };
  }

  /**
   * A follow-up's change to its session: the new state (and query, for `update`), the records it
   * adds, a fresh expiry, and the query and state it had before (PostgreSQL puts them back should
   * it have to undo the call).
   */
  changed(session: SessionRow, state: SessionState, records: RecordRow[], query?: JsonObject): NonNullable<CommitOp["sessionUpdate"]> {
    return {
      id: session.id,
      ...(query === undefined ? {} : { query }),
      state: stateJson(state),
      expiresAt: this.expiry(),
      records,
      previous: { query: session.query, state: session.state },
    };
  }

  /** A fresh expiry for a session a record action used, written with the action's commit. */
  touched(session: SessionRow): NonNullable<CommitOp["touch"]> {
    return { sessionId: session.id, expiresAt: this.expiry() };
  }

  private expiry(): number {
    return this.deps.clock.now() + this.deps.config.sessionTtlSeconds * 1000;
  }

  private assertLive(session: SessionRow): void {
    if (session.expiresAt <= this.deps.clock.now()) throw sessionExpired();
  }
}
