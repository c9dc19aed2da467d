/**
 * The test kit every capability test uses, so a case is a few lines:
 * - `fixture` / `fixtureText`: the project's recorded provider bodies (fixtures/providers/<folder>);
 * - `fakeContext`: a capability context whose upstream answers from recorded bodies (or a function)
 *   and records the requests sent, for pure source and action tests without a server;
 * - `violationsOf`: the production validator (Ajv with formats and defaults) plus the capability's
 *   rules, exactly as execute runs them;
 * - `startCapabilityKit`: a real Quarry over HTTP against the replay upstream with a funded account,
 *   and calls named after what they do (`execute`, `more`, `update`, `action`, `expectViolation`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createBoundedCache, createIndexes } from "../../src/capabilities/framework/cache.ts";
import type { BaseContext, Capability, Filter, JsonObject } from "../../src/capabilities/types.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { Violation } from "../../src/errors.ts";
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from "../../src/upstream/types.ts";
import { PROVIDERS, type ProviderDef } from "../../src/providers.ts";
import { checkJsonAnswer } from "../../src/upstream/response-check.ts";
import { validate } from "../../src/validation.ts";
import { type Harness, type HarnessOptions, type HttpResult, startHarness } from "./harness.ts";

const FIXTURES = new URL("../../fixtures/providers/", import.meta.url);

export function fixtureText(folder: string, file: string): string {
  return readFileSync(new URL(`${folder}/${file}`, FIXTURES), "utf8");
}

export function fixture(folder: string, file: string): unknown {
  return JSON.parse(fixtureText(folder, file));
}

/** Every provider's key variable set to a placeholder (as the replay environment does): every source is configured. */
export function everyKey(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const def of Object.values(PROVIDERS as Record<string, ProviderDef>)) if (def.keyVar) env[def.keyVar] = def.defaultKey ?? "test-key";
  return env;
}

/** What a fake upstream answers: a body (status 200), or a function of the request. */
export type FakeAnswer = unknown | ((request: UpstreamRequest) => unknown | Promise<unknown>);

/** A full response from a fake answer function (a bare value is a 200 body). */
export function response(status: number, body: unknown): UpstreamResponse {
  return { status, headers: {}, body, text: typeof body === "string" ? body : JSON.stringify(body) };
}

function isResponse(v: unknown): v is UpstreamResponse {
  return typeof v === "object" && v !== null && "status" in v && "headers" in v && "body" in v;
}

/**
 * A context for calling a capability's `search` or an action's `run` directly. Each request is
 * answered by `answer` (a list answers requests in order) and kept in `requests`.
 */
export function fakeContext(
  answer: FakeAnswer,
  options: { env?: Record<string, string | undefined>; filters?: Filter[]; config?: Config; signal?: AbortSignal } = {},
): { ctx: BaseContext; requests: UpstreamRequest[] } {
  const requests: UpstreamRequest[] = [];
  const queue = Array.isArray(answer) ? [...answer] : null;
  const upstream: UpstreamClient = {
    send: (async (request: UpstreamRequest): Promise<UpstreamResponse> => {
      requests.push(request);
      const value = queue !== null ? queue.shift() : typeof answer === "function" ? await (answer as (r: UpstreamRequest) => unknown)(request) : answer;
      if (value instanceof Error) throw value;
      const res = isResponse(value) ? value : response(200, value);
      // The same check the upstream client makes: the provider's error answer, then the declared schema.
      if (request.responseType !== "text" && request.responseType !== "bytes") checkJsonAnswer(request, res.status, res.body);
      return res;
    }) as UpstreamClient["send"],
    hasKey: () => true,
    close: async () => {},
  };
  const config = options.config ?? loadConfig({ ...everyKey(), ...options.env });
  const indexes = createIndexes();
  const ctx: BaseContext = {
    upstream,
    signal: options.signal ?? new AbortController().signal,
    now: () => new Date(),
    config,
    cache: createBoundedCache(),
    index: (name, opts, load) => indexes.get(name, opts, () => load({ upstream, signal: new AbortController().signal })),
    filters: options.filters ?? [],
  };
  return { ctx, requests };
}

/**
 * The violations execute would answer for `body` (defaults are applied to it in place): the schema's
 * with Ajv's formats, then, when there are none, the capability's rules; update-only fields refused.
 */
export function violationsOf(cap: Capability, body: JsonObject): Violation[] {
  const out: Violation[] = cap.updateOnly.filter((f) => body[f] !== undefined).map((f) => ({ path: `/${f}`, message: "update only" }));
  const schema = validate(cap.schema, body);
  out.push(...schema);
  if (schema.length === 0) out.push(...cap.checkRules(body));
  return out;
}

export interface CapabilityKit {
  h: Harness;
  key: string;
  accountId: string;
  execute(body: unknown, key?: string): Promise<HttpResult>;
  more(searchId: string): Promise<HttpResult>;
  update(searchId: string, params: unknown): Promise<HttpResult>;
  action(recordId: string, action: string): Promise<HttpResult>;
  /** Execute `body` and expect one 400 whose violations include `pointer` (its message matching `message`). */
  expectViolation(body: unknown, pointer: string, message?: RegExp): Promise<Violation[]>;
  /** Same, for an update of `searchId` with `params` (pointers under /params). */
  expectUpdateViolation(searchId: string, params: unknown, pointer: string, message?: RegExp): Promise<Violation[]>;
  /** The account's credits used now. */
  used(): Promise<number>;
  close(): Promise<void>;
}

/** A harness (replay upstream, embedded store or DATABASE_URL) with a `pro` account, for capability `id`. */
export async function startCapabilityKit(id: string, options: HarnessOptions = {}): Promise<CapabilityKit> {
  const h = await startHarness(options);
  const { key, accountId } = await h.account("pro");
  const post = (path: string, body: unknown, k = key) => h.call("POST", path, { key: k, body });
  const expect400 = async (res: HttpResult, pointer: string, message?: RegExp) => {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "invalid_request");
    const violations: Violation[] = res.body.error.violations ?? [];
    const hit = violations.find((v) => v.path === pointer && (message === undefined || message.test(v.message)));
    assert.ok(hit, `expected a violation at ${pointer}${message ? ` matching ${message}` : ""}; got ${JSON.stringify(violations)}`);
    return violations;
  };
  return {
    h,
    key,
    accountId,
    execute: (body, k) => post(`/v1/capabilities/${id}/execute`, body, k),
    more: (searchId) => post("/v1/follow-up", { search_id: searchId, action: "more" }),
    update: (searchId, params) => post("/v1/follow-up", { search_id: searchId, action: "update", params }),
    action: (recordId, action) => post("/v1/follow-up", { record_id: recordId, action }),
    expectViolation: async (body, pointer, message) => expect400(await post(`/v1/capabilities/${id}/execute`, body), pointer, message),
    expectUpdateViolation: async (searchId, params, pointer, message) =>
      expect400(await post("/v1/follow-up", { search_id: searchId, action: "update", params }), pointer, message),
    used: async () => (await h.store.getAccount(accountId))!.creditsUsed,
    close: () => h.close(),
  };
}
