/**
 * The fuzzer's transport and checks: send a payload over REST or as an MCP tools/call (raw
 * JSON-RPC), decide what the server must have seen (Fastify refuses prototype-poisoning keys;
 * the MCP route drops them), then check the answer against the spec envelope, the error
 * catalog, JSON pointer landing, and the ledger (nothing charged for a refusal or failure).
 */
import assert from "node:assert/strict";
import { ERROR_CODES } from "../../src/errors.ts";
import type { Store } from "../../src/store/types.ts";
import type { Payload } from "./fuzz-mutations.ts";
import { isJsonPointer, isRecord, pointerLands } from "./fuzz-schema.ts";

/** What the oracle says the server must do with a body. */
export type Verdict =
  /** Refused: 400 invalid_request with landing violations. */
  | "invalid"
  /** Accepted: 2xx, or a provider/reviewer failure from the allowed 5xx list. */
  | "valid"
  /** Well formed but may be refused on its merits (unknown id, action): 2xx, any 4xx, allowed 5xx. */
  | "merits";

/**
 * 5xx codes a VALID body may legitimately get: the replay upstream has no recording for most
 * generated queries (404 → 502 provider_error), or the Sharpen reviewers failed.
 */
export const PROVIDER_5XX: ReadonlySet<string> = new Set(["provider_error", "provider_timeout"]);
export const SHARPEN_5XX: ReadonlySet<string> = new Set([
  "provider_error",
  "provider_timeout",
  "sharpen_no_reviewer",
]);

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  jsonOk: boolean;
}

const MAX_SHOWN = 1_500;
export const preview = (v: unknown): string => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined
    ? String(v)
    : s.length > MAX_SHOWN
      ? `${s.slice(0, MAX_SHOWN)}… (${s.length} chars)`
      : s;
};

async function post(url: string, headers: Record<string, string>, text: string | undefined): Promise<Answer> {
  const res = await fetch(url, { method: "POST", headers, ...(text === undefined ? {} : { body: text }) });
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

/** Prototype-poisoning shapes refused anywhere in a REST body or a tool call's arguments (json-body.ts). */
export function poisoned(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(poisoned);
  if (!isRecord(v)) return false;
  for (const k of Object.keys(v)) {
    if (k === "__proto__") return true;
    if (k === "constructor" && isRecord(v[k]) && Object.hasOwn(v[k], "prototype")) return true;
    if (poisoned(v[k])) return true;
  }
  return false;
}

/** The payload as the REST route parses it: `parsed` is false when the bytes are not a JSON body. */
export function restView(p: Payload): {
  text: string | undefined;
  contentType: string | undefined;
  root: unknown;
  parsed: boolean;
} {
  if (p.kind === "raw") return { text: p.text, contentType: p.contentType, root: undefined, parsed: false };
  const text = JSON.stringify(p.value);
  return { text, contentType: "application/json", root: JSON.parse(text), parsed: true };
}

export async function restPost(base: string, path: string, key: string, p: Payload): Promise<Answer> {
  const view = restView(p);
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (view.contentType) headers["content-type"] = view.contentType;
  return post(base + path, headers, view.text);
}

/** Arguments as the MCP server sees them (undefined: the `arguments` member was left out). */
export function mcpView(args: unknown): unknown {
  return args === undefined ? undefined : JSON.parse(JSON.stringify(args));
}

let rpcId = 0;
/** One tools/call as a raw JSON-RPC POST (stateless endpoint, no handshake needed). */
export async function mcpCall(
  base: string,
  key: string,
  name: string,
  args: unknown,
): Promise<{ answer: Answer; id: number }> {
  const id = ++rpcId;
  const message = {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, ...(args === undefined ? {} : { arguments: args }) },
  };
  const answer = await post(
    `${base}/mcp`,
    {
      authorization: `Bearer ${key}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    },
    JSON.stringify(message),
  );
  return { answer, id };
}

/**
 * The spec error envelope: `{error:{code, message, retryable, requestId, hint?, violations?}}`,
 * code in the catalog with its status and retryable flag, no other keys.
 */
export function checkEnvelope(
  json: unknown,
  status: number | null,
  where: string,
): { code: string; violations: unknown[] | undefined } {
  assert.ok(isRecord(json) && isRecord(json.error), `${where}: no error envelope: ${preview(json)}`);
  assert.deepEqual(
    Object.keys(json).sort(),
    ["error"],
    `${where}: envelope has extra keys: ${preview(json)}`,
  );
  const e = json.error;
  const allowed = new Set(["code", "message", "hint", "retryable", "violations", "requestId"]);
  for (const k of Object.keys(e)) assert.ok(allowed.has(k), `${where}: unexpected envelope key ${k}`);
  assert.ok(
    typeof e.code === "string" && Object.hasOwn(ERROR_CODES, e.code),
    `${where}: code not in the catalog: ${preview(e.code)}`,
  );
  const spec = ERROR_CODES[e.code as keyof typeof ERROR_CODES];
  // not_found is 405 on a path served under other methods (docs/errors.md).
  if (status !== null && !(e.code === "not_found" && status === 405)) assert.equal(status, spec.status, `${where}: HTTP ${status} for code ${e.code}`);
  // A provider's refusal, a changed answer (drift) or a bot challenge is provider_error but not
  // retryable, and its hint says why (docs/errors.md).
  const refusal =
    e.code === "provider_error" && e.retryable === false && typeof e.hint === "string" && /refused|changed its answer|bot protection/.test(e.hint);
  if (!refusal) assert.equal(e.retryable, spec.retryable, `${where}: retryable of ${e.code}`);
  assert.ok(typeof e.message === "string" && e.message.length > 0, `${where}: message`);
  assert.ok(
    typeof e.requestId === "string" && /^req_/.test(e.requestId),
    `${where}: requestId ${preview(e.requestId)}`,
  );
  if (e.hint !== undefined) assert.equal(typeof e.hint, "string", `${where}: hint`);
  if (e.violations !== undefined) assert.ok(Array.isArray(e.violations), `${where}: violations not an array`);
  return { code: e.code, violations: e.violations as unknown[] | undefined };
}

/** 400 violations: non-empty; each a JSON pointer that lands in `root` (or, for a missing field, in its parent). */
export function checkViolations(violations: unknown[] | undefined, root: unknown, where: string): string[] {
  assert.ok(Array.isArray(violations) && violations.length > 0, `${where}: 400 without violations`);
  const paths: string[] = [];
  for (const v of violations) {
    assert.ok(
      isRecord(v) && typeof v.path === "string" && typeof v.message === "string",
      `${where}: violation shape ${preview(v)}`,
    );
    const path = v.path as string;
    assert.ok(isJsonPointer(path), `${where}: not a JSON pointer: ${JSON.stringify(path)}`);
    assert.ok(
      pointerLands(root, path),
      `${where}: pointer ${JSON.stringify(path)} does not land in the sent body`,
    );
    paths.push(path);
  }
  return paths;
}

/**
 * Judge one answer against the verdict. `status` is the HTTP status for REST, null for an MCP
 * tool error (whose envelope travels in a 200). Returns the code (or "ok") for statistics.
 */
export function judge(
  verdict: Verdict,
  ok: boolean,
  status: number | null,
  json: unknown,
  root: unknown,
  where: string,
  allowed5xx: ReadonlySet<string>,
  /**
   * Pointers (with what is under them) of fields only the source can check (Capability.sourceChecked):
   * a valid body may be refused 400 there, and only there.
   */
  sourceChecked: readonly string[] = [],
): string {
  if (ok) {
    assert.notEqual(verdict, "invalid", `${where}: an invalid body was accepted: ${preview(json)}`);
    assert.ok(isRecord(json), `${where}: a success that is not a JSON object: ${preview(json)}`);
    return "ok";
  }
  const { code, violations } = checkEnvelope(json, status, where);
  const httpStatus = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
  assert.ok(code !== "internal_error", `${where}: internal_error: ${preview(json)}`);
  if (httpStatus >= 500) {
    assert.notEqual(
      verdict,
      "invalid",
      `${where}: ${code} for an invalid body (must be 400): ${preview(json)}`,
    );
    assert.ok(allowed5xx.has(code), `${where}: ${code} is not an acceptable failure here: ${preview(json)}`);
  } else if (verdict === "invalid") {
    assert.equal(code, "invalid_request", `${where}: an invalid body answered ${code}: ${preview(json)}`);
  } else if (verdict === "valid") {
    const atChecked =
      code === "invalid_request" &&
      sourceChecked.length > 0 &&
      Array.isArray(violations) &&
      violations.length > 0 &&
      violations.every((v) => isRecord(v) && typeof v.path === "string" && sourceChecked.some((p) => v.path === p || (v.path as string).startsWith(`${p}/`)));
    if (!atChecked) assert.fail(`${where}: a valid body was refused with ${code}: ${preview(json)}`);
  }
  if (code === "invalid_request") checkViolations(violations, root, where);
  return code;
}

/** Watches one account: a refusal must change nothing; a success moves both by its charged_credits. */
export class ChargeWatch {
  /** Sum of charged_credits of every success seen. */
  charged = 0;
  constructor(
    private readonly store: Store,
    readonly accountId: string,
  ) {}

  private async snapshot(): Promise<{ used: number; ledger: number }> {
    const account = await this.store.getAccount(this.accountId);
    assert.ok(account, "fuzz account vanished");
    return { used: account.creditsUsed, ledger: await this.store.ledgerTotal(this.accountId) };
  }

  /** Run one call; `outcome` says whether it succeeded and what it charged. */
  async around<T>(
    where: string,
    call: () => Promise<T>,
    outcome: (r: T) => { ok: boolean; charged: unknown },
  ): Promise<T> {
    const before = await this.snapshot();
    const result = await call();
    const after = await this.snapshot();
    const { ok, charged } = outcome(result);
    if (!ok) {
      assert.deepEqual(after, before, `${where}: a refused or failed call changed the balance or the ledger`);
      return result;
    }
    assert.ok(
      typeof charged === "number" && Number.isInteger(charged) && charged >= 0,
      `${where}: charged_credits ${preview(charged)}`,
    );
    assert.equal(
      after.used - before.used,
      charged,
      `${where}: creditsUsed moved by ${after.used - before.used}, charged_credits ${charged}`,
    );
    assert.equal(
      after.ledger - before.ledger,
      charged,
      `${where}: ledger moved by ${after.ledger - before.ledger}, charged_credits ${charged}`,
    );
    this.charged += charged;
    return result;
  }

  /** Everything the account was charged is what its successes said they charged. */
  async assertTotals(): Promise<void> {
    const now = await this.snapshot();
    assert.equal(now.ledger, this.charged, "ledger total equals the sum of charged_credits");
    assert.equal(now.used, this.charged, "creditsUsed equals the sum of charged_credits");
  }
}

/** charged_credits of a success body, if any. */
export const chargedOf = (json: unknown): unknown => (isRecord(json) ? json.charged_credits : undefined);
