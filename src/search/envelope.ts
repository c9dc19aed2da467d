/**
 * The answers of a search (spec 2.3 ExecuteResponse, 2.7 RecordFollowUpResponse), built from a
 * session's state and the records of this slice.
 */
import { balanceOf } from "../accounts/accounts.ts";
import { actionNames, type Capability, type JsonObject, type JsonValue, type Link, type RecordDraft } from "../capabilities/types.ts";
import type { AccountRow, RecordRow } from "../store/types.ts";
import type { ExecuteResponse, RecordFollowUpResponse } from "../wire.ts";
import { hasMoreOf, type SessionState, searchActions } from "./session-state.ts";

export const FOLLOW_UP_URL = "/v1/follow-up";

/**
 * The answer to execute, `more` and `update`. `query`: the query the page's records were found under
 * (the session's current one), which record actions may need to say whether they apply.
 */
export function executeResponse(
  cap: Capability,
  searchId: string,
  query: JsonObject,
  state: SessionState,
  visible: RecordRow[],
  charged: number,
  account: AccountRow,
): ExecuteResponse {
  const hasMore = hasMoreOf(cap, state);
  // A row's summary is its draft's (RecordDraft: `title` a string), stored as JSON and read back.
  const results = visible.map((r) => ({ record_id: r.id, ...(r.summary as RecordDraft["summary"]) }));
  const actions = searchActions(cap);
  const recordActions = actionNames(cap);
  // An empty page with nothing after it gets no example: the one body valid then, `update` with no
  // params, would run the same search again (billed where execute is) and, followed, loop for ever.
  // A note says what to do instead (docs/architecture.md, "next.example").
  let example: JsonObject | null = null;
  let notes = state.notes;
  if (hasMore) example = { search_id: searchId, action: "more" };
  else if (results.length > 0 && recordActions.length > 0) {
    example = firstRecordAction(cap, query, visible);
    if (example === null) notes = [...(notes ?? []), noRecordActionNote(cap)];
  } else if (results.length === 0) notes = [...(notes ?? []), nothingMoreNote(cap)];
  return {
    search_id: searchId,
    capability: cap.id,
    results,
    result_count: results.length,
    has_more: hasMore,
    ...(state.filters ? { filters: state.filters.map(({ id, label, group }) => ({ id, label, group })) } : {}),
    next: { url: FOLLOW_UP_URL, actions, example },
    record_actions: recordActions,
    ...(notes ? { notes } : {}),
    charged_credits: charged,
    balance: balanceOf(account),
  };
}

export function recordResponse(
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

/** The first record of the page and the first of its actions that can run on it (a body valid right now), or null. */
function firstRecordAction(cap: Capability, query: JsonObject, visible: RecordRow[]): JsonObject | null {
  for (const row of visible) {
    const record = { summary: row.summary, ref: row.ref, detail: row.detail, query };
    const action = Object.values(cap.actions).find((a) => a.appliesTo(record));
    if (action !== undefined) return { record_id: row.id, action: action.name };
  }
  return null;
}

/** The note of a last page none of whose records can take a record action (next.example is null then). */
function noRecordActionNote(cap: Capability): string {
  const then = cap.offersUpdate ? "send update with the fields to change, or execute again" : "execute again";
  return `No record on this page can take a record action (${actionNames(cap).join(", ")}): each lacks what the action needs. To search for something else, ${then}.`;
}

/** The note of an empty page with nothing after it (next.example is null then). */
function nothingMoreNote(cap: Capability): string {
  return cap.offersUpdate
    ? "Nothing (more) to show for this search. To search for something else, send update with the fields to change, or execute again."
    : "Nothing (more) to show for this search. To search for something else, execute again.";
}
