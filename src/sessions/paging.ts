/**
 * Follow-up `more` (spec 3.2): the next slice from the result set held in the session (local
 * paging, free), or from the source at the stored cursor (billed like the search).
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Capability, SearchPage } from "../capabilities/types.ts";
import type { CallOrigin } from "../errors.ts";
import type { SessionRow } from "../store/types.ts";
import { type ExecuteResponse, executeResponse } from "./envelope.ts";
import type { SessionWork } from "./routing.ts";
import type { SessionState } from "./session-state.ts";

export async function moreLocal(
  work: SessionWork,
  caller: Caller,
  cap: Capability,
  session: SessionRow,
  state: SessionState,
  origin: CallOrigin,
): Promise<ExecuteResponse> {
  const size = cap.pageSize(session.query);
  const from = state.start + state.served;
  const to = Math.min(from + size, state.start + (state.total ?? 0));
  const visible = to > from ? await work.deps.store.getRecords(session.id, from, to) : [];
  const next: SessionState = { ...state, served: state.served + visible.length };
  const billed = await work.deps.billing.run(caller, { capability: cap.id, operation: "more", maxCredits: 0, origin }, async () => ({
    result: null,
    credits: 0,
    persist: { sessionUpdate: work.sessionUpdate(session, next, []) },
  }));
  return executeResponse(cap, session.id, session.query, next, visible, billed.charged, billed.account);
}

export async function moreFromSource(
  work: SessionWork,
  caller: Caller,
  cap: Capability,
  session: SessionRow,
  state: SessionState,
  origin: CallOrigin,
): Promise<ExecuteResponse> {
  // Past the end: an empty page, free, no provider call.
  const exhausted = state.cursor === null || state.cursor === undefined;
  const billed = await work.deps.billing.run(
    caller,
    { capability: cap.id, operation: "more", maxCredits: exhausted ? 0 : cap.maxCredits(session.query), origin },
    async () => {
      const page: SearchPage = exhausted
        ? { records: [], next: null, credits: 0 }
        : await work.runSearch(cap, session.query, state.cursor ?? null, origin, state.filters);
      const rows = work.records(cap, session.id, caller.account.id, page, state.nextPosition);
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
        persist: { sessionUpdate: work.sessionUpdate(session, next, rows) },
      };
    },
  );
  return executeResponse(cap, session.id, session.query, billed.result.next, billed.result.rows, billed.charged, billed.account);
}
