/**
 * The fuzzer's view of what people use (test/fuzz.test.ts): the OAuth endpoints, which answer in
 * OAuth's own error JSON (RFC 6749 §5.2, RFC 7591 §3.2.2) rather than the envelope, and the
 * dashboard's form posts, which answer pages and redirects and need the session's CSRF token.
 * Bodies are the fuzzer's generated values sent as forms where the document says so.
 */
import assert from "node:assert/strict";
import type { Payload } from "./fuzz-mutations.ts";
import { isRecord } from "./fuzz-schema.ts";
import { type Answer, preview } from "./fuzz-wire.ts";

/** Error codes the OAuth endpoints may answer, and the status each goes with. */
export const OAUTH_ERRORS: Record<string, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  unsupported_token_type: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  too_many_requests: 429,
};

/** A form field's value as text: strings as they are (lone surrogates become U+FFFD on the wire), other values as JSON. */
const asText = (v: unknown): string => (typeof v === "string" ? v : (JSON.stringify(v) ?? String(v))).toWellFormed();

/**
 * A payload as a form post and what the server parses from it: every field a string, a field sent
 * several times (an array) a list. `root` is null when the bytes are not a form of an object
 * (raw bytes, a non-object value): then only "never 5xx" can be asked of the answer.
 */
export function formView(p: Payload): { text: string | undefined; contentType: string | undefined; root: Record<string, string | string[]> | null } {
  if (p.kind === "raw") return { text: p.text, contentType: p.contentType, root: null };
  const form = "application/x-www-form-urlencoded";
  if (!isRecord(p.value)) return { text: asText(p.value), contentType: form, root: null };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(p.value)) {
    for (const item of Array.isArray(v) ? v : [v]) params.append(k.toWellFormed(), asText(item));
  }
  const root: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of params) {
    const had = root[k];
    root[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return { text: params.toString(), contentType: form, root };
}

export async function postRaw(url: string, headers: Record<string, string>, text: string | undefined): Promise<Answer> {
  const res = await fetch(url, { method: "POST", headers, redirect: "manual", ...(text === undefined ? {} : { body: text }) });
  const body = await res.text();
  let json: unknown = null;
  let jsonOk = false;
  try {
    json = JSON.parse(body);
    jsonOk = true;
  } catch {
    jsonOk = false;
  }
  return { status: res.status, headers: res.headers, text: body, json, jsonOk };
}

/**
 * An OAuth endpoint's answer: never 5xx; a success only for a body the schema admits; a refusal is
 * `{error, error_description?}` with a code OAuth defines and its status. Returns the code or "ok".
 */
export function checkOAuthAnswer(a: Answer, invalid: boolean, where: string): string {
  assert.ok(a.status < 500, `${where}: HTTP ${a.status} ${preview(a.text)}`);
  assert.ok(a.jsonOk && isRecord(a.json), `${where}: not a JSON object: ${preview(a.text)}`);
  assert.equal(a.headers.get("cache-control"), "no-store", `${where}: cache-control`);
  if (a.status >= 200 && a.status < 300) {
    assert.ok(!invalid, `${where}: a body the schema refuses was accepted: ${preview(a.text)}`);
    return "ok";
  }
  const json = a.json as Record<string, unknown>;
  for (const k of Object.keys(json)) assert.ok(["error", "error_description", "error_uri"].includes(k), `${where}: unexpected member ${k}`);
  const code = json.error;
  assert.ok(typeof code === "string" && Object.hasOwn(OAUTH_ERRORS, code), `${where}: error ${preview(code)}`);
  assert.equal(a.status, OAUTH_ERRORS[code], `${where}: HTTP ${a.status} for ${code}`);
  if (json.error_description !== undefined) assert.equal(typeof json.error_description, "string", `${where}: error_description`);
  return code;
}

/**
 * A dashboard form post's answer: never 5xx; without the session's CSRF token, 403 and nothing done
 * (or 400 for bytes that are no form at all); with it, a page (409: a create-key form sent again) or a
 * redirect within the dashboard.
 */
export function checkDashboardAnswer(a: Answer, csrfOk: boolean | null, where: string): string {
  assert.ok(a.status < 500, `${where}: HTTP ${a.status} ${preview(a.text)}`);
  if (csrfOk === false) assert.equal(a.status, 403, `${where}: no valid CSRF token, yet HTTP ${a.status} ${preview(a.text)}`);
  if (csrfOk === null) assert.ok(a.status === 400 || a.status === 403 || a.status === 404, `${where}: HTTP ${a.status}`);
  // 409: a create-key form without its one-use token (a re-post), answered with the keys page.
  if (csrfOk === true) assert.ok([200, 303, 400, 404, 409, 429].includes(a.status), `${where}: HTTP ${a.status} ${preview(a.text)}`);
  if (a.status === 303) {
    assert.match(a.headers.get("location") ?? "", /^\/dashboard(?:[/?]|$)/, `${where}: redirected outside the dashboard`);
  } else {
    assert.match(a.headers.get("content-type") ?? "", /^text\/html/, `${where}: content type`);
    assert.equal(a.headers.get("cache-control"), "no-store", `${where}: cache-control`);
  }
  return String(a.status);
}
