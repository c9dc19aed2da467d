/**
 * Record-scope follow-ups (spec 4.5 rules 3-4): the action is looked up in the capability's map
 * (the only check of its name), then served from the cache or the stored detail (free), or run
 * once through its handler under the deadline, billed as its cost declares, and cached on the
 * record in the same commit as the charge.
 */
import type { Caller } from "../accounts/accounts.ts";
import { actionNames } from "../capabilities/types.ts";
import { ApiError, asRecordRefusal, type CallOrigin, invalidRequest, STORED_DETAIL_GONE, sessionExpired, unknownRecordAction } from "../errors.ts";
import { type RecordFollowUpResponse, recordResponse } from "./envelope.ts";
import { asProviderError, recordView, type SessionWork, UNKNOWN_ID_HINT } from "./routing.ts";
import { queryAt, searchActions } from "./session-state.ts";

export async function recordFollowUp(
  work: SessionWork,
  caller: Caller,
  recordId: string,
  action: string,
  hasParams: boolean,
  origin: CallOrigin,
): Promise<RecordFollowUpResponse> {
  const found = await work.deps.store.getRecord(recordId);
  if (!found || found.record.accountId !== caller.account.id || found.session.accountId !== caller.account.id) {
    throw new ApiError("record_unknown", `No record "${recordId}" for this account.`, { hint: UNKNOWN_ID_HINT });
  }
  const { record, session } = found;
  if (session.expiresAt <= work.deps.clock.now()) throw sessionExpired();
  const cap = work.capability(session.capability);
  work.assertUsable(caller, cap);
  const def = Object.hasOwn(cap.actions, action) ? cap.actions[action] : undefined;
  if (!def && searchActions(cap).includes(action)) {
    throw invalidRequest([
      { path: "/action", message: `${action} is a search action; send it with the search_id of this record's search (${session.id})` },
    ]);
  }
  if (!def) throw unknownRecordAction(cap.id, action, actionNames(cap));
  if (hasParams) throw invalidRequest([{ path: "/params", message: "record actions take no params (params are for update)" }]);

  const cached = record.actions[action];
  const stored = !cached && def.mode === "stored" ? await work.storedDetail(cap, record, session) : null;
  if (cached || stored) {
    // Served without a provider call: free; the session's life is extended in the same commit. Only
    // the expiry is written: record actions are not serialized with `more` on the session, so
    // writing back the state read above could rewind a page served meanwhile.
    const hit = (cached ?? stored)!;
    const billed = await work.deps.billing.run(caller, { capability: cap.id, operation: action, maxCredits: 0, origin }, async () => ({
      result: null,
      credits: 0,
      persist: { touch: work.touch(session) },
    }));
    return recordResponse(recordId, action, hit.detail, hit.links, true, billed.charged, billed.account);
  }
  const run = def.run;
  if (!run) throw sessionExpired(STORED_DETAIL_GONE);
  const billed = await work.deps.billing.run(
    caller,
    { capability: cap.id, operation: action, maxCredits: def.maxCredits(queryAt(session, record.position)), origin },
    async () => {
      const ctx = work.context(cap, origin);
      try {
        const out = await run(ctx, recordView(record, session));
        return {
          result: out,
          credits: out.credits,
          ...(out.costUsd === undefined ? {} : { costUsd: out.costUsd }),
          persist: {
            recordAction: { recordId, action, result: { detail: out.detail, links: out.links } },
            touch: work.touch(session),
          },
        };
      } catch (err) {
        const failure = asRecordRefusal(asProviderError(err, cap.id, ctx.signal.aborted));
        throw ctx.demo?.failure(failure) ?? failure;
      }
    },
  );
  // Answered wholly from Quarry's answer cache (an identical provider request within its time to live): `cached`, free.
  return recordResponse(recordId, action, billed.result.detail, billed.result.links, billed.result.fromCache === true, billed.charged, billed.account);
}
