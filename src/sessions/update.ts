/**
 * Follow-up `update` (spec 4.5 rule 2): params merged into the stored query (the capability's own
 * merge, or a shallow one where `null` removes a field), the whole query revalidated with the
 * violations at `/params/...` (rules that read the stored search included), paging reset, the
 * search run again under the same `search_id`.
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Capability, JsonObject } from "../capabilities/types.ts";
import { ApiError, type CallOrigin, invalidRequest, pointer } from "../errors.ts";
import type { SessionRow } from "../store/types.ts";
import { unknownFieldMessage } from "../validation.ts";
import { type ExecuteResponse, executeResponse } from "./envelope.ts";
import { type SessionWork, sessionView } from "./routing.ts";
import { earlierAfterUpdate, freshSet, type SessionState } from "./session-state.ts";

export async function update(
  work: SessionWork,
  caller: Caller,
  cap: Capability,
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
  const stored = sessionView(session);
  const query = cap.mergeUpdate ? cap.mergeUpdate(session.query, known, stored) : defaultMerge(session.query, known);
  const removed = new Set(Object.keys(known).filter((k) => known[k] === null).map((k) => pointer("params", k)));
  const violations = [
    ...unknown.map((k) => ({ path: pointer("params", k), message: unknownFieldMessage(k, fields) })),
    ...work.queryViolations(cap, query, "/params", new Set(Object.keys(known)), stored).map((v) =>
      // null removes a field: a required one cannot be removed, only given a new value.
      removed.has(v.path) && /required/.test(v.message) ? { ...v, message: `${v.message}: null would remove it, and a required field cannot be removed; send a new value instead` } : v,
    ),
  ];
  if (violations.length > 0) throw invalidRequest(violations);
  work.assertQueryAvailable(cap, query);
  const start = state.nextPosition;
  const billed = await underParams(work.deps.billing.run(
    caller,
    { capability: cap.id, operation: "update", maxCredits: cap.maxCredits(query), origin },
    async () => {
      const page = await work.runSearch(cap, query, null, origin, state.filters);
      const rows = work.records(cap, session.id, caller.account.id, page, start);
      const fresh = freshSet(cap, query, page, rows, start);
      const earlier = earlierAfterUpdate(session, state);
      if (earlier !== undefined) fresh.state.earlier = earlier;
      return {
        result: fresh,
        credits: page.credits,
        ...(page.costUsd === undefined ? {} : { costUsd: page.costUsd }),
        persist: { sessionUpdate: work.sessionUpdate(session, fresh.state, rows, query) },
      };
    },
  ));
  return executeResponse(cap, session.id, query, billed.result.state, billed.result.visible, billed.charged, billed.account);
}

/**
 * A refusal the source makes after validation (a reference the provider does not know, a place that
 * does not geocode) points at the body's field; in an update that field was sent in `params`.
 */
async function underParams<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (err instanceof ApiError && err.code === "invalid_request" && err.violations !== undefined) {
      throw invalidRequest(
        // `/action` (a search at its record limit) is the follow-up's own field, not a param.
        err.violations.map((v) => ({ path: v.path.startsWith("/params") || v.path === "/action" ? v.path : `/params${v.path}`, message: v.message })),
        err.message,
      );
    }
    throw err;
  }
}

/** Shallow merge; a null param removes the stored field (its default then applies again). */
export function defaultMerge(stored: JsonObject, params: JsonObject): JsonObject {
  const merged: JsonObject = { ...stored };
  for (const [k, v] of Object.entries(params)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}
