/**
 * A search session's paging state (kept as JSON in the session row) and what follows from it:
 * whether there is more, which search actions are offered. See docs/architecture.md, "Session paging".
 */
import type { Capability, Filter, JsonObject, JsonValue, SearchPage } from "../capabilities/types.ts";
import type { RecordRow, SessionRow } from "../store/types.ts";

/** Paging state kept in the session row. Positions number every record the session ever got. */
export type SessionState = {
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
  /** The filters of the last answer, with their private tokens (stripped from answers). */
  filters?: Filter[];
  /**
   * The earlier result sets that hold records, oldest first: where each starts and the query it was
   * found under (`update` replaces the session's query; a record found before keeps its own, so its
   * actions run as it was found: the same variant, the same stay, the same price). Absent until an
   * update follows a set with records.
   */
  earlier?: { from: number; query: JsonObject }[];
};

/** Session state is stored as JSON; its fields are all JSON values. */
export function stateJson(state: SessionState): JsonObject {
  return state as unknown as JsonObject;
}

export function stateOf(session: SessionRow): SessionState {
  return session.state as unknown as SessionState;
}

export function hasMoreOf(cap: Capability, state: SessionState): boolean {
  if (cap.paging === "single") return false;
  if (cap.paging === "local") return state.served < (state.total ?? 0);
  return state.cursor !== null && state.cursor !== undefined;
}

/** The query the record at `position` was found under: its set's, or the session's current one. */
export function queryAt(session: SessionRow, position: number): JsonObject {
  const state = stateOf(session);
  if (position >= state.start || state.earlier === undefined) return session.query;
  let query = session.query;
  for (const set of state.earlier) {
    if (set.from > position) break;
    query = set.query;
  }
  return query;
}

/**
 * The earlier sets after an update replaces the current one: the current set joins them when it
 * holds records (positions `start` to `nextPosition`).
 */
export function earlierAfterUpdate(session: SessionRow, state: SessionState): SessionState["earlier"] {
  const held = state.nextPosition > state.start;
  if (!held) return state.earlier;
  return [...(state.earlier ?? []), { from: state.start, query: session.query }];
}

/** Search-scope actions a capability accepts (spec 2.5 `next.actions`). */
export function searchActions(cap: Capability): string[] {
  const actions: string[] = [];
  if (cap.paging !== "single") actions.push("more");
  if (cap.offersUpdate) actions.push("update");
  return actions;
}

/** The state and the visible slice of a fresh result set (execute or update). */
export function freshSet(cap: Capability, query: JsonObject, page: SearchPage, rows: RecordRow[], start: number) {
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
