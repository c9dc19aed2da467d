/**
 * Record-scope follow-ups (spec 4.5 rules 3-4): the action is looked up in the capability's map
 * (the only check of its name), then served from the cache or the stored detail (free), or run
 * once through its handler under the deadline, billed as its cost declares, and cached on the
 * record in the same commit as the charge.
 */
import type { Caller } from "../accounts/accounts.ts";
import { actionNames } from "../capabilities/types.ts";
import { type CallOrigin, invalidRequest, STORED_DETAIL_GONE, sessionExpired, unknownRecordAction } from "../errors.ts";
import { billedCall, FREE } from "./billed-call.ts";
import type { RecordFollowUpResponse } from "../wire.ts";
import { recordResponse } from "./envelope.ts";
import { recordView } from "./record-rows.ts";
import { queryAt, searchActions } from "./session-state.ts";
import type { SearchSteps } from "./steps.ts";

export async function recordFollowUp(
  steps: SearchSteps,
  caller: Caller,
  recordId: string,
  action: string,
  hasParams: boolean,
  origin: CallOrigin,
): Promise<RecordFollowUpResponse> {
  const { record, session } = await steps.sessions.liveRecord(caller, recordId);
  const cap = steps.availability.capability(session.capability);
  steps.availability.assertUsable(caller, cap);
  const def = Object.hasOwn(cap.actions, action) ? cap.actions[action] : undefined;
  if (!def && searchActions(cap).includes(action)) {
    throw invalidRequest([
      { path: "/action", message: `${action} is a search action; send it with the search_id of this record's search (${session.id})` },
    ]);
  }
  if (!def) throw unknownRecordAction(cap.id, action, actionNames(cap));
  if (hasParams) throw invalidRequest([{ path: "/params", message: "record actions take no params (params are for update)" }]);

  const cached = record.actions[action];
  const stored = !cached && def.mode === "stored" ? await steps.rows.storedDetail(cap, record, session) : null;
  if (cached || stored) {
    // Served without a provider call: free; the session's life is extended in the same commit. Only
    // the expiry is written: record actions are not serialized with `more` on the session, so
    // writing back the state read above could rewind a page served meanwhile.
    const hit = (cached ?? stored)!;
    const billed = await billedCall(steps.billing, caller, { cap, operation: action, maxCredits: 0, origin }, async () => ({
      result: null,
      cost: FREE,
      persist: { touch: steps.sessions.touched(session) },
    }));
    return recordResponse(recordId, action, hit.detail, hit.links, true, billed.charged, billed.account);
  }
  const run = def.run;
  if (!run) throw sessionExpired(STORED_DETAIL_GONE);
  const maxCredits = def.maxCredits(queryAt(session, record.position));
  const billed = await billedCall(steps.billing, caller, { cap, operation: action, maxCredits, origin }, async () => {
    const out = await steps.runner.action(cap, run, recordView(record, session), origin);
    return {
      result: out,
      cost: out,
      persist: {
        recordAction: { recordId, action, result: { detail: out.detail, links: out.links } },
        touch: steps.sessions.touched(session),
      },
    };
  });
  // Answered wholly from Quarry's answer cache (an identical provider request within its time to live): `cached`, free.
  return recordResponse(recordId, action, billed.result.detail, billed.result.links, billed.result.fromCache === true, billed.charged, billed.account);
}
