/**
 * Follow-up `more` (spec 3.2): the next slice from the result set held in the session (local
 * paging, free), or from the source at the stored cursor (billed like the search).
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Capability, SearchPage } from "../capabilities/types.ts";
import type { CallOrigin } from "../errors.ts";
import type { SessionRow } from "../store/types.ts";
import { billedCall, FREE } from "./billed-call.ts";
import type { ExecuteResponse } from "../wire.ts";
import { executeResponse } from "./envelope.ts";
import type { SessionState } from "./session-state.ts";
import type { SearchSteps } from "./steps.ts";

export async function moreLocal(
  steps: SearchSteps,
  caller: Caller,
  cap: Capability,
  session: SessionRow,
  state: SessionState,
  origin: CallOrigin,
): Promise<ExecuteResponse> {
  const size = cap.pageSize(session.query);
  const from = state.start + state.served;
  const to = Math.min(from + size, state.start + (state.total ?? 0));
  const visible = await steps.sessions.records(session, from, to);
  const next: SessionState = { ...state, served: state.served + visible.length };
  const billed = await billedCall(steps.billing, caller, { cap, operation: "more", maxCredits: 0, origin }, async () => ({
    result: null,
    cost: FREE,
    persist: { sessionUpdate: steps.sessions.changed(session, next, []) },
  }));
  return executeResponse(cap, session.id, session.query, next, visible, billed.charged, billed.account);
}

export async function moreFromSource(
  steps: SearchSteps,
  caller: Caller,
  cap: Capability,
  session: SessionRow,
  state: SessionState,
  origin: CallOrigin,
): Promise<ExecuteResponse> {
  // Past the end: an empty page, free, no provider call.
  const exhausted = state.cursor === null || state.cursor === undefined;
  const maxCredits = exhausted ? 0 : cap.maxCredits(session.query);
  const billed = await billedCall(steps.billing, caller, { cap, operation: "more", maxCredits, origin }, async () => {
    const page: SearchPage = exhausted
      ? { records: [], next: null, credits: 0 }
      : await steps.runner.search(cap, session.query, state.cursor ?? null, origin, state.filters);
    const rows = steps.rows.fromPage(cap, session.id, caller.account.id, page, state.nextPosition);
    const next: SessionState = {
      ...state,
      nextPosition: state.nextPosition + rows.length,
      served: state.served + rows.length,
      cursor: page.next ?? null,
      ...(page.notes?.length ? { notes: page.notes } : {}),
      ...(page.filters?.length ? { filters: page.filters } : {}),
    };
    return { result: { next, rows }, cost: page, persist: { sessionUpdate: steps.sessions.changed(session, next, rows) } };
  });
  return executeResponse(cap, session.id, session.query, billed.result.next, billed.result.rows, billed.charged, billed.account);
}
