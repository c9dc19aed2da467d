/**
 * Query validation, the one place a search's query is checked: the capability's schema (defaults
 * applied in place), then its cross-field rules; for execute, the update-only fields refused at
 * their pointer; for update (spec 4.5 rule 2), the params merged into the stored query and the whole
 * query checked again, every violation at `/params/...`, rules that read the stored search included.
 * Ajv and the error pointers are src/validation.ts's; the rules are each capability's declarations.
 */
import type { Capability, JsonObject, SessionView } from "../capabilities/types.ts";
import { invalidRequest, pointer, type Violation, violationsUnder } from "../errors.ts";
import type { SessionRow } from "../store/types.ts";
import { isObject, unknownFieldMessage, validate } from "../validation.ts";
import { FollowUpRequestSchema } from "./follow-up-schema.ts";
import { stateOf } from "./session-state.ts";

/** An execute body as the capability's query (schema with defaults, update-only fields, then cross-field rules), or 400. */
export function validateQuery(cap: Capability, body: unknown): JsonObject {
  if (!isObject(body)) throw invalidRequest([{ path: "", message: "must be a JSON object" }]);
  const violations: Violation[] = cap.updateOnly
    .filter((f) => body[f] !== undefined)
    .map((f) => ({ path: pointer(f), message: `${f} is accepted only in update (send it in the params of a follow-up update of this search)` }));
  violations.push(...queryViolations(cap, body, ""));
  if (violations.length > 0) throw invalidRequest(violations);
  return body as JsonObject;
}

/** A follow-up body (spec 4.5): its schema, then exactly one of search_id and record_id; or 400. */
export function validateFollowUp(body: unknown): asserts body is Record<string, unknown> {
  if (!isObject(body)) throw invalidRequest([{ path: "", message: "must be a JSON object" }]);
  const violations = validate(FollowUpRequestSchema, body);
  const hasSearch = body.search_id !== undefined;
  const hasRecord = body.record_id !== undefined;
  if (hasSearch && hasRecord) violations.push({ path: "/record_id", message: "give exactly one of search_id or record_id, not both" });
  if (!hasSearch && !hasRecord) violations.push({ path: "", message: "give exactly one of search_id or record_id" });
  if (violations.length > 0) throw invalidRequest(violations);
}

/**
 * Schema violations of a query (defaults applied in place), then its cross-field rules if it has
 * none. `sent`: the fields the caller supplied, when the query also holds stored ones (update).
 */
export function queryViolations(
  cap: Capability,
  body: Record<string, unknown>,
  at: string,
  sent?: ReadonlySet<string>,
  session?: SessionView,
): Violation[] {
  const violations: Violation[] = validate(cap.schema, body, at);
  if (violations.length === 0) {
    for (const v of cap.checkRules(body as JsonObject, sent, session)) violations.push({ path: at + v.path, message: v.message });
  }
  return violations;
}

/**
 * The query an update's params make of the stored one (the capability's own merge, or a shallow one
 * where `null` removes a field), checked whole, or 400 with every violation at `/params/...`. Only
 * request fields may be sent: unknown ones are reported at /params/<key> (they never reach the
 * stored query), together with what is wrong with the query the known ones make.
 */
export function updatedQuery(cap: Capability, session: SessionRow, params: JsonObject): JsonObject {
  const fields = Object.keys(cap.schema.properties);
  const unknown = Object.keys(params).filter((k) => !fields.includes(k));
  const known = unknown.length === 0 ? params : Object.fromEntries(Object.entries(params).filter(([k]) => fields.includes(k)));
  const stored = sessionView(session);
  const query = cap.mergeUpdate ? cap.mergeUpdate(session.query, known, stored) : defaultMerge(session.query, known);
  const removed = new Set(Object.keys(known).filter((k) => known[k] === null).map((k) => pointer("params", k)));
  const violations = [
    ...unknown.map((k) => ({ path: pointer("params", k), message: unknownFieldMessage(k, fields) })),
    ...queryViolations(cap, query, "/params", new Set(Object.keys(known)), stored).map((v) =>
      // null removes a field: a required one cannot be removed, only given a new value.
      removed.has(v.path) && /required/.test(v.message)
        ? { ...v, message: `${v.message}: null would remove it, and a required field cannot be removed; send a new value instead` }
        : v,
    ),
  ];
  if (violations.length > 0) throw invalidRequest(violations);
  return query;
}

/**
 * A refusal the source makes after validation (a reference the provider does not know, a place that
 * does not geocode) points at the body's field; in an update that field was sent in `params`.
 * `/action` (a search at its record limit) is the follow-up's own field, not a param.
 */
export function underUpdateParams(err: unknown): unknown {
  return violationsUnder(err, "/params", (path) => path.startsWith("/params") || path === "/action");
}

/** The stored search as update rules see it. */
export function sessionView(session: SessionRow): SessionView {
  return { query: session.query, filters: stateOf(session).filters ?? [] };
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
