/**
 * The answers of a search (spec 2.3 ExecuteResponse, 2.7 RecordFollowUpResponse), built from a
 * session's state and the records of this slice.
 */
import { balanceOf } from "../accounts/accounts.ts";
import { actionNames, type Capability, type Filter, type JsonObject, type JsonValue, type Link } from "../capabilities/types.ts";
import type { AccountRow, RecordRow } from "../store/types.ts";
import { hasMoreOf, type SessionState, searchActions } from "./session-state.ts";

export const FOLLOW_UP_URL = "/v1/follow-up";

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
  filters?: Omit<Filter, "token">[];
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

export function executeResponse(
  cap: Capability,
  searchId: string,
  state: SessionState,
  visible: RecordRow[],
  charged: number,
  account: AccountRow,
): ExecuteResponse {
  const hasMore = hasMoreOf(cap, state);
  const results = visible.map((r) => ({ record_id: r.id, ...r.summary }));
  const actions = searchActions(cap);
  const recordActions = actionNames(cap);
  // An empty page with nothing after it gets no example: the one body valid then, `update` with no
  // params, would run the same search again (billed where execute is) and, followed, loop for ever.
  // A note says what to do instead (docs/architecture.md, "next.example").
  let example: JsonObject | null = null;
  let notes = state.notes;
  if (hasMore) example = { search_id: searchId, action: "more" };
  else if (results.length > 0 && recordActions.length > 0) {
    example = { record_id: results[0]!.record_id, action: recordActions[0]! };
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

/** The note of an empty page with nothing after it (next.example is null then). */
function nothingMoreNote(cap: Capability): string {
  return cap.offersUpdate
    ? "Nothing (more) to show for this search. To search for something else, send update with the fields to change, or execute again."
    : "Nothing (more) to show for this search. To search for something else, execute again.";
}
