/**
 * Follow-up `update` (spec 4.5 rule 2): the query the params make of the stored one, checked whole
 * (query-validation.ts), paging reset, the search run again under the same `search_id`.
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Capability, JsonObject } from "../capabilities/types.ts";
import type { CallOrigin } from "../errors.ts";
import type { SessionRow } from "../store/types.ts";
import { billedCall } from "./billed-call.ts";
import type { ExecuteResponse } from "../wire.ts";
import { executeResponse } from "./envelope.ts";
import { underUpdateParams, updatedQuery } from "./query-validation.ts";
import { earlierAfterUpdate, freshSet, type SessionState } from "./session-state.ts";
import type { SearchSteps } from "./steps.ts";

export async function update(
  steps: SearchSteps,
  caller: Caller,
  cap: Capability,
  session: SessionRow,
  state: SessionState,
  params: JsonObject,
  origin: CallOrigin,
): Promise<ExecuteResponse> {
  const query = updatedQuery(cap, session, params);
  steps.availability.assertQueryAvailable(cap, query);
  const start = state.nextPosition;
  const billed = await billedCall(steps.billing, caller, { cap, operation: "update", maxCredits: cap.maxCredits(query), origin }, async () => {
    const page = await steps.runner.search(cap, query, null, origin, state.filters);
    const rows = steps.rows.fromPage(cap, session.id, caller.account.id, page, start);
    const fresh = freshSet(cap, query, page, rows, start);
    const earlier = earlierAfterUpdate(session, state);
    if (earlier !== undefined) fresh.state.earlier = earlier;
    return { result: fresh, cost: page, persist: { sessionUpdate: steps.sessions.changed(session, fresh.state, rows, query) } };
  }).catch((err) => {
    throw underUpdateParams(err);
  });
  return executeResponse(cap, session.id, query, billed.result.state, billed.result.visible, billed.charged, billed.account);
}
