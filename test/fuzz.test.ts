/**
 * Hostile-input fuzzer (issue 5, item 4). Bodies are generated from every request schema of the
 * OpenAPI document (each capability's execute body, follow-up, sharpen) and mutated (wrong types,
 * extra and prototype-poisoning keys, keys needing pointer escapes, boundaries ±1, huge strings,
 * deep nesting, unicode, nulls, missing fields, non-objects, non-JSON bytes, foreign and malformed
 * ids), then sent over REST and as MCP tool calls. Properties: an invalid body is a 400 envelope
 * whose violations are JSON pointers landing in the sent body; a valid one is a 2xx or an allowed
 * provider failure; never a 500; nothing is ever charged for a refusal or failure, and every
 * success moves the ledger by exactly its charged_credits. Plus the reference capabilities'
 * cross-field rules as targeted properties.
 *
 * A second block sends VALID but hostile bodies (NUL, lone surrogates, RTL, emoji) to a catch-all
 * upstream, so they are really served, stored, re-read (update {}) and charged.
 *
 * Seeded: FUZZ_SEED=<n> replays a run (the seed is printed), FUZZ_RUNS=<n> sets the runs per REST
 * endpoint (default 200; MCP and targeted properties run a quarter, the catch-all block a half).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { registry } from "../src/capabilities/registry.ts";
import {
  simulatedSharpenEnv,
  startModelSimulator,
  type ModelSimulator,
} from "../src/demo/model-simulator.ts";
import { startReplay } from "../src/demo/replay/replay-server.ts";
import { MAX_BODY_DEPTH, validate } from "../src/validation.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { checkDashboardAnswer, checkOAuthAnswer, formView, postRaw } from "./helpers/fuzz-people.ts";
import { person, type Visitor } from "./helpers/people.ts";
import { hashKey } from "../src/accounts/accounts.ts";
import { redirectUriMatches } from "../src/people/oauth.ts";
import { createHash, randomBytes } from "node:crypto";
import { CATCH_ALL_CAPABILITIES, wildcardFixtures } from "./helpers/fuzz-replay.ts";
import {
  HOSTILE_KEYS,
  hostileString,
  mutatedBodies,
  type Payload,
  rawPayload,
  validBodies,
} from "./helpers/fuzz-mutations.ts";
import {
  hasIllFormedString,
  nestedDeeperThan,
  codePoints,
  copyObject,
  isRecord,
  type JsonSchema,
  pointerToken,
  type Resolver,
  resolverFor,
  schemaProblems,
  setOwn,
  validValue,
} from "./helpers/fuzz-schema.ts";
import {
  type Answer,
  ChargeWatch,
  chargedOf,
  checkEnvelope,
  checkViolations,
  judge,
  mcpCall,
  mcpView,
  PROVIDER_5XX,
  poisoned,
  preview,
  restPost,
  restView,
  SHARPEN_5XX,
  type Verdict,
} from "./helpers/fuzz-wire.ts";

const BASE_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = process.env.FUZZ_RUNS ? Math.max(1, Number(process.env.FUZZ_RUNS)) : 200;
const SMALL_RUNS = Math.max(1, Math.round(RUNS / 4));

/**
 * Runs per endpoint of the mutated-bodies property: RUNS each while there were a handful of
 * endpoints; with one per capability (~30) the same budget of RUNS × 8 requests is shared, at least
 * 50 each, so the suite's time does not grow with every capability added. FUZZ_RUNS scales it.
 */
function perEndpointRuns(): number {
  return Math.max(Math.min(RUNS, 50), Math.round((RUNS * 8) / Math.max(1, endpoints.length)));
}
/** Huge credits and rate limit: no 402/429 masks a result. Sharpen allows every stage. */
const PLANS = JSON.stringify([
  {
    id: "free",
    name: "Free",
    credits: 100_000_000,
    period: "once",
    rateLimitPerMinute: 100_000_000,
    capabilities: "*",
    sharpenTier: "ultra2x",
  },
]);
/** Spec 4.8: task, context, approach and draft together must stay under 60,000 code points. */
const SHARPEN_LIMIT = 60_000;
const SHARPEN_TEXT_FIELDS = ["task", "context", "approach", "draft"];
const RECIPE_SELECTORS = ["query", "ingredient", "category", "cuisine"];
const EXECUTE_PATH = /^\/v1\/capabilities\/([^/]+)\/execute$/;

type Kind = "execute" | "follow-up" | "sharpen" | "other" | "oauth" | "dashboard";
interface Endpoint {
  path: string;
  kind: Kind;
  capability?: string;
  schema: JsonSchema;
  /** The body is application/x-www-form-urlencoded (the OAuth token endpoints, the dashboard's forms). */
  form?: boolean;
}

let sim: ModelSimulator;
let h: Harness;
let key: string;
let watch: ChargeWatch;
let resolve: Resolver;
let endpoints: Endpoint[];
let toolSchemas: Map<string, JsonSchema>;
const examples = new Map<string, Record<string, unknown>[]>();
const updateSchemas = new Map<string, JsonSchema>();
const own = { searchIds: [] as string[], recordIds: [] as string[] };
/** People: a signed-in dashboard visitor of an account of its own, an OAuth client with live tokens. */
const people = {
  visitor: undefined as unknown as Visitor,
  ownKeyIds: [] as string[],
  /** The main fuzz key's id: another account's, which the dashboard must never touch. */
  foreignKeyId: "",
  clientId: "",
  redirect: "http://127.0.0.1:49154/cb",
  refreshTokens: [] as string[],
  accessTokens: [] as string[],
};
const foreign = { searchIds: [] as string[], recordIds: [] as string[] };

console.log(`fuzz: FUZZ_SEED=${BASE_SEED} FUZZ_RUNS=${RUNS}`);

/** fc.assert with this run's seed, a readable replay hint and statistics as test diagnostics. */
async function check<T>(
  t: { name: string; diagnostic(message: string): void },
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns: number,
  /** Values run first, whatever the seed (the endpoint's own examples: at least one call succeeds). */
  examples: T[] = [],
): Promise<void> {
  // One seed per property, from the base seed and the test's name (stable under --test-name-pattern).
  let seed = BASE_SEED | 0;
  for (const ch of t.name) seed = Math.imul(seed ^ ch.charCodeAt(0), 16777619);
  t.diagnostic(`seed ${seed} (FUZZ_SEED=${BASE_SEED}), ${numRuns} runs`);
  try {
    await fc.assert(fc.asyncProperty(arb, predicate), { seed, numRuns, examples: examples.map((e) => [e] as [T]) });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`Replay with FUZZ_SEED=${BASE_SEED} FUZZ_RUNS=${RUNS}.\n${message}`, { cause: err });
  }
}

class Stats {
  private readonly counts = new Map<string, number>();
  add(...keys: string[]): void {
    for (const k of keys) this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }
  get(k: string): number {
    return this.counts.get(k) ?? 0;
  }
  toString(): string {
    return [...this.counts.entries()]
      .sort()
      .map(([k, n]) => `${k}=${n}`)
      .join(" ");
  }
}

// ---------------------------------------------------------------------------------------------
// The oracle: schema problems (fuzz-schema.ts) plus the cross-field rules, written here from the spec
// ---------------------------------------------------------------------------------------------

const present = (body: Record<string, unknown>, k: string) => Object.hasOwn(body, k) && body[k] !== undefined;

function ruleProblems(ep: { kind: Kind; capability?: string }, body: Record<string, unknown>): string[] {
  if (ep.kind === "follow-up") {
    return present(body, "search_id") === present(body, "record_id") ? [""] : [];
  }
  if (ep.kind === "sharpen") {
    const n = SHARPEN_TEXT_FIELDS.reduce(
      (sum, f) =>
        sum + (typeof body[f] === "string" && Object.hasOwn(body, f) ? codePoints(body[f] as string) : 0),
      0,
    );
    return n >= SHARPEN_LIMIT ? [""] : [];
  }
  if (ep.capability === "academic.search") {
    const from = body.from_year;
    const to = body.to_year;
    return typeof from === "number" && typeof to === "number" && from > to ? ["/from_year"] : [];
  }
  if (ep.capability === "recipes.search") {
    return RECIPE_SELECTORS.filter((s) => present(body, s)).length === 1 ? [] : [""];
  }
  // A capability added later: its own rules are the only statement of them (update-only fields
  // included), read (as execute reads them) on the body with its defaults applied.
  const cap = ep.capability ? registry[ep.capability] : undefined;
  if (!cap) return [];
  const updateOnly = cap.updateOnly.filter((f) => present(body, f)).map((f) => `/${f}`);
  const withDefaults = structuredClone(body);
  validate(cap.schema, withDefaults);
  return [...updateOnly, ...cap.checkRules(withDefaults as never).map((v) => v.path)];
}

const allowed5xx = (kind: Kind) => (kind === "sharpen" ? SHARPEN_5XX : PROVIDER_5XX);

/**
 * Isolation: a well-formed follow-up naming an id this account does not own (another account's,
 * or a stranger) must be 404 record_unknown whatever else it says, never served.
 */
function mustBeUnknown(kind: Kind, verdict: Verdict, root: unknown): boolean {
  if (kind !== "follow-up" || verdict !== "merits" || !isRecord(root)) return false;
  const id = present(root, "search_id") ? root.search_id : root.record_id;
  return !own.searchIds.includes(id as string) && !own.recordIds.includes(id as string);
}

function checkUnknown(ok: boolean, code: string, where: string): void {
  assert.ok(
    !ok && code === "record_unknown",
    `${where}: an id this account does not own answered ${ok ? "2xx" : code}`,
  );
}

/** What the server must do with a body it parsed as `root`. */
function verdictFor(ep: { kind: Kind; capability?: string; schema: JsonSchema }, root: unknown): Verdict {
  if (!isRecord(root) || hasIllFormedString(root) || nestedDeeperThan(root, MAX_BODY_DEPTH)) return "invalid";
  const problems = schemaProblems(ep.schema, root, resolve);
  const rules =
    problems.length === 0 || ep.kind === "follow-up" || ep.kind === "sharpen" ? ruleProblems(ep, root) : [];
  if (problems.length + rules.length > 0) return "invalid";
  return ep.kind === "follow-up" ? "merits" : "valid";
}

// ---------------------------------------------------------------------------------------------
// Generators that need the running service (real ids, examples)
// ---------------------------------------------------------------------------------------------

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const MALFORMED_IDS = [
  "",
  "srch_",
  "rec_",
  "srch_AAAAAAAAAAAAAAA",
  "srch_AAAAAAAAAAAAAAAAA",
  "rec_AAAAAAAAAAAAAAA!",
  "SRCH_AAAAAAAAAAAAAAAA",
  " srch_AAAAAAAAAAAAAAAA",
  "srch_AAAAAAAAAAAAAAAA\u0000",
  "srch_AAAAAAAAAAAAAAAA\n",
  "srch_../../../etc/pas",
  "rec_😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀",
  "srch_' OR '1'='1' --x",
  "sess_AAAAAAAAAAAAAAAA",
  `srch_${"A".repeat(10_000)}`,
];

/** Ids for follow-up: own (real), another account's (real), well-formed strangers, malformed ones. */
function idPool(kind: "search" | "record"): fc.Arbitrary<unknown> {
  const mine = kind === "search" ? own.searchIds : own.recordIds;
  const theirs = kind === "search" ? foreign.searchIds : foreign.recordIds;
  const other = kind === "search" ? own.recordIds : own.searchIds;
  const prefix = kind === "search" ? "srch_" : "rec_";
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...mine) },
    { weight: 2, arbitrary: fc.constantFrom(...theirs) },
    { weight: 1, arbitrary: fc.constantFrom(...other) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.constantFrom(...BASE62.split("")), { minLength: 16, maxLength: 16 })
        .map((a) => prefix + a.join("")),
    },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_IDS) },
    { weight: 1, arbitrary: hostileString() },
  );
}

const ACTIONS = [
  "more",
  "update",
  "details",
  "DETAILS",
  "more ",
  "",
  "x".repeat(41),
  "__proto__",
  "constructor",
  "toString",
];
const actionPool = () =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ACTIONS) }, { weight: 1, arbitrary: hostileString() });

/** Update params: the inspect `update` params schema of a capability, itself mutated. */
function paramsPool(): fc.Arbitrary<unknown> {
  const perCap = [...updateSchemas.values()].map((s) =>
    mutatedBodies(s, resolve, validBodies(s, resolve)).map((p) => (p.kind === "json" ? p.value : {})),
  );
  return fc.oneof(fc.constant({}), fc.constant({ num: null }), ...perCap);
}

function followUpBodies(ep: Endpoint): fc.Arbitrary<Payload> {
  // Mostly this account's own ids with their usual actions, so follow-ups also succeed and charge;
  // another account's real ids often enough that serving one (an isolation leak) is caught.
  const mostlyOwn = (kind: "search" | "record") =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(kind === "search" ? own.searchIds : own.recordIds)) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...(kind === "search" ? foreign.searchIds : foreign.recordIds)),
      },
      { weight: 1, arbitrary: idPool(kind) },
    );
  const realistic = fc.oneof(
    fc
      .tuple(
        mostlyOwn("search"),
        fc.constantFrom("more", "update"),
        fc.option(paramsPool(), { nil: undefined }),
      )
      .map(([search_id, action, params]) => ({
        search_id,
        action,
        ...(params === undefined ? {} : { params }),
      })),
    fc
      .tuple(mostlyOwn("record"), fc.constantFrom("details", "details", "details", "more"))
      .map(([record_id, action]) => ({ record_id, action })),
  );
  const valid = fc.oneof(
    { weight: 1, arbitrary: validBodies(ep.schema, resolve) },
    { weight: 3, arbitrary: realistic },
  );
  return mutatedBodies(ep.schema, resolve, valid as fc.Arbitrary<Record<string, unknown>>, {
    fieldValues: {
      search_id: idPool("search"),
      record_id: idPool("record"),
      action: actionPool(),
      params: paramsPool(),
    },
  });
}

/** Texts right around the combined Sharpen limit, in ASCII and in emoji (one code point each). */
const nearLimit = () =>
  fc
    .tuple(fc.constantFrom(59_990, 59_997, 59_998, 59_999, 60_000), fc.constantFrom("a", "😀"))
    .map(([n, unit]) => unit.repeat(n));

/** Field values that reach past the first refusal: the session's real CSRF token, real client ids and tokens. */
function peopleFieldValues(ep: Endpoint): Record<string, fc.Arbitrary<unknown>> {
  const mostly = <T>(real: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: real }, { weight: 1, arbitrary: hostileString() });
  if (ep.kind === "dashboard") {
    // Signing out with a real token would end the fuzzer's session: only forged ones there.
    return ep.path === "/dashboard/sign-out"
      ? { _csrf: hostileString() }
      : {
          _csrf: mostly(fc.constant(people.visitor.csrf)),
          stage: mostly(fc.constantFrom("default", "stock", "stage1", "stage2", "stage3+")),
          decision: mostly(fc.constantFrom("approve", "deny")),
        };
  }
  const values: Record<string, fc.Arbitrary<unknown>> = {
    client_id: mostly(fc.constant(people.clientId)),
    redirect_uri: mostly(fc.constantFrom(people.redirect, "http://127.0.0.1:1/cb", "https://evil.example/cb")),
    resource: mostly(fc.constantFrom(h.url, `${h.url}/mcp`, "https://evil.example/")),
    token: mostly(fc.constantFrom(...people.accessTokens, ...people.refreshTokens)),
    refresh_token: mostly(fc.constantFrom(...people.refreshTokens)),
    code_verifier: mostly(fc.constant("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")),
  };
  if (ep.path === "/oauth/register") {
    return {
      redirect_uris: fc.array(
        fc.oneof(
          fc.constantFrom(people.redirect, "https://app.example/cb", "com.example.app:/cb", "http://evil.example/cb", "javascript:alert(1)", "https://a.example/#f"),
          hostileString(),
        ),
        { maxLength: 3 },
      ),
    };
  }
  return values;
}

/**
 * The schema bodies are generated from: the published one, but for the redirect URI pattern, whose
 * lookahead fast-check cannot generate strings from (the pool in peopleFieldValues stands in). The
 * oracle still judges with the published schema.
 */
function generationSchema(ep: Endpoint): JsonSchema {
  if (ep.path !== "/oauth/register") return ep.schema;
  const copy = structuredClone(ep.schema) as { properties: { redirect_uris: { items: Record<string, unknown> } } };
  delete copy.properties.redirect_uris.items.pattern;
  return copy as unknown as JsonSchema;
}

/** Valid registrations (the published redirect URI pattern has a lookahead, which fast-check cannot generate from). */
function validRegistrations(ep: Endpoint): fc.Arbitrary<Record<string, unknown>> {
  const props = ep.schema.properties as Record<string, JsonSchema>;
  // URLs where the SDK's client metadata schema wants URLs (client_uri, logo_uri, tos_uri).
  const url = fc.constantFrom("https://app.example", "https://app.example/logo.png", "https://app.example/terms");
  const optional = Object.fromEntries(
    Object.entries(props)
      .filter(([k]) => k !== "redirect_uris")
      .map(([k, schema]) => [k, ["client_uri", "logo_uri", "tos_uri"].includes(k) ? url : validValue(schema, resolve)]),
  );
  return fc
    .tuple(fc.array(fc.constantFrom(people.redirect, "https://app.example/cb", "com.example.app:/cb", "http://localhost/x?y=1"), { minLength: 1, maxLength: 3 }), fc.record(optional, { requiredKeys: [] }))
    .map(([redirect_uris, rest]) => ({ ...rest, redirect_uris }));
}

function bodiesFor(ep: Endpoint): fc.Arbitrary<Payload> {
  if (ep.kind === "follow-up") return followUpBodies(ep);
  if (ep.kind === "oauth" || ep.kind === "dashboard") {
    const base = ep.path === "/oauth/register" ? validRegistrations(ep) : validBodies(ep.schema, resolve);
    // A dashboard form as the page gives it: with the session's token (edits then forge or drop it).
    const valid = ep.kind === "dashboard" && ep.path !== "/dashboard/sign-out" ? base.map((b) => ({ ...b, _csrf: people.visitor.csrf })) : base;
    return mutatedBodies(generationSchema(ep), resolve, valid, { fieldValues: peopleFieldValues(ep) });
  }
  const schemaValid = validBodies(ep.schema, resolve);
  const samples = ep.capability ? (examples.get(ep.capability) ?? []) : [];
  const valid =
    samples.length > 0
      ? fc.oneof({ weight: 2, arbitrary: schemaValid }, { weight: 1, arbitrary: fc.constantFrom(...samples) })
      : schemaValid;
  const fieldValues: Record<string, fc.Arbitrary<unknown>> = ep.kind === "sharpen"
    ? { task: nearLimit(), draft: nearLimit(), context: nearLimit() }
    : {};
  return mutatedBodies(ep.schema, resolve, valid, { fieldValues });
}

// ---------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------

async function restCall(path: string, k: string, p: Payload, w: ChargeWatch | null): Promise<Answer> {
  const send = () => restPost(h.url, path, k, p);
  if (!w) return send();
  return w.around(`POST ${path}`, send, (a) => ({
    ok: a.status >= 200 && a.status < 300,
    charged: chargedOf(a.json),
  }));
}

/** Run the recorded examples for an account; collect its search and record ids. */
async function seedSessions(
  k: string,
  into: { searchIds: string[]; recordIds: string[] },
  w: ChargeWatch | null,
) {
  for (const [cap, bodies] of examples) {
    for (const body of bodies) {
      const res = await restCall(
        `/v1/capabilities/${cap}/execute`,
        k,
        { kind: "json", value: body, label: "example" },
        w,
      );
      assert.equal(res.status, 200, `example of ${cap}: ${res.text}`);
      const json = res.json as { search_id: string; results: { record_id: string }[] };
      into.searchIds.push(json.search_id);
      into.recordIds.push(...json.results.slice(0, 3).map((r) => r.record_id));
    }
  }
}

before(async () => {
  sim = await startModelSimulator();
  h = await startHarness({ env: { ...simulatedSharpenEnv(sim.url), QUARRY_PLANS: PLANS, OAUTH_REGISTRATIONS_PER_HOUR: "1000000" } });
  const main = await h.account("free");
  key = main.key;
  watch = new ChargeWatch(h.store, main.accountId);

  const doc = (await h.call("GET", "/v1/openapi.public.json")).body as unknown;
  assert.ok(isRecord(doc) && isRecord(doc.paths), "isRecord(doc) && isRecord(doc.paths)");
  resolve = resolverFor(doc);
  endpoints = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const body = isRecord(item) && isRecord(item.post) ? bodySchema(item.post) : undefined;
    // MCP answers in JSON-RPC, not the envelope: fuzzed through its execute tool below instead.
    if (!body || path.startsWith("/mcp")) continue;
    const m = EXECUTE_PATH.exec(path);
    const kind: Kind = m
      ? "execute"
      : path === "/v1/follow-up"
        ? "follow-up"
        : path === "/v1/sharpen"
          ? "sharpen"
          : path.startsWith("/oauth/")
            ? "oauth"
            : path.startsWith("/dashboard/")
              ? "dashboard"
              : "other";
    endpoints.push({ path, kind, schema: body.schema, ...(body.form ? { form: true } : {}), ...(m ? { capability: m[1]! } : {}) });
  }
  for (const ep of endpoints.filter((e) => e.capability)) {
    const inspect = await h.call("GET", `/v1/capabilities/${ep.capability}`, { key });
    assert.equal(inspect.status, 200);
    const body = inspect.body as {
      examples: { body: Record<string, unknown> }[];
      follow_ups: { action: string; params_schema?: JsonSchema }[];
    };
    examples.set(
      ep.capability!,
      body.examples.map((e) => e.body),
    );
    const update = body.follow_ups.find((f) => f.action === "update")?.params_schema;
    if (update) updateSchemas.set(ep.capability!, update);
  }

  const rpc = await fetch(`${h.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list" }),
  });
  const tools = ((await rpc.json()) as { result: { tools: { name: string; inputSchema: JsonSchema }[] } })
    .result.tools;
  toolSchemas = new Map(tools.map((t) => [t.name, t.inputSchema]));

  await seedSessions(key, own, watch);
  const other = await h.account("free");
  await seedSessions(other.key, foreign, null);
  await seedPeople(main.accountId);
});

/** A dashboard visitor on an account of its own, and an OAuth client of its with live tokens. */
async function seedPeople(mainAccountId: string) {
  const dash = await person(h, "free");
  people.visitor = dash.visitor;
  await dash.visitor.get("/dashboard/keys");
  people.ownKeyIds = (await h.store.listKeys(dash.accountId)).map((k) => k.id);
  people.foreignKeyId = (await h.store.listKeys(mainAccountId))[0]!.id;
  assert.equal((await h.store.findKeyByHash(hashKey(key)))!.key.id, people.foreignKeyId);
  const registered = await fetch(`${h.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Fuzz host", redirect_uris: [people.redirect], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] }),
  });
  people.clientId = ((await registered.json()) as { client_id: string }).client_id;
  for (let i = 0; i < 3; i++) {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const start = await people.visitor.get(
      `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: people.clientId, redirect_uri: people.redirect, code_challenge: challenge, code_challenge_method: "S256" })}`,
    );
    assert.equal(start.status, 303);
    await people.visitor.get("/dashboard/authorize");
    const back = await people.visitor.post("/dashboard/authorize", { decision: "approve", request: people.visitor.consentRequest });
    const code = new URL(back.location!).searchParams.get("code")!;
    const tokens = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: people.redirect, client_id: people.clientId }),
    });
    const json = (await tokens.json()) as { access_token: string; refresh_token: string };
    people.accessTokens.push(json.access_token);
    people.refreshTokens.push(json.refresh_token);
  }
  await people.visitor.get("/dashboard/keys");
}

function bodySchema(op: Record<string, unknown>): { schema: JsonSchema; form: boolean } | undefined {
  const rb = op.requestBody;
  if (!isRecord(rb) || !isRecord(rb.content)) return undefined;
  for (const [type, form] of [["application/json", false], ["application/x-www-form-urlencoded", true]] as const) {
    const media = rb.content[type];
    if (isRecord(media) && isRecord(media.schema)) return { schema: media.schema, form };
  }
  return undefined;
}

after(async () => {
  await h?.close();
  await sim?.close();
});

// ---------------------------------------------------------------------------------------------
// REST
// ---------------------------------------------------------------------------------------------

/** Send one payload over REST and judge the answer; returns the statistic keys. */
async function restCase(ep: Endpoint, p: Payload): Promise<string[]> {
  const view = restView(p);
  const verdict: Verdict = !view.parsed || poisoned(view.root) ? "invalid" : verdictFor(ep, view.root);
  const where = `POST ${ep.path} [${p.label}] verdict=${verdict}`;
  const a = await restCall(ep.path, key, p, watch);
  const ok = a.status >= 200 && a.status < 300;
  assert.ok(a.status < 500 || verdict !== "invalid", `${where}: HTTP ${a.status} ${preview(a.text)}`);
  assert.ok(a.jsonOk, `${where}: HTTP ${a.status} with a body that is not JSON: ${preview(a.text)}`);
  assert.match(a.headers.get("content-type") ?? "", /^application\/json/, `${where}: content type`);
  if (!ok) {
    assert.ok(a.status >= 400, `${where}: HTTP ${a.status}`);
    const id = isRecord(a.json) && isRecord(a.json.error) ? a.json.error.requestId : undefined;
    assert.equal(
      a.headers.get("x-request-id"),
      id,
      `${where}: x-request-id differs from the envelope's requestId`,
    );
  }
  const checked = (ep.capability ? registry[ep.capability]?.sourceChecked : undefined) ?? [];
  const code = judge(verdict, ok, a.status, a.json, view.root, where, allowed5xx(ep.kind), checked.map((f) => `/${f}`));
  if (mustBeUnknown(ep.kind, verdict, view.root)) checkUnknown(ok, code, where);
  return [verdict, code];
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Percent-encode a path segment; lone surrogates become their (invalid) 3-byte UTF-8 form. */
function encodePathSegment(id: string): string {
  let out = "";
  for (const ch of id) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/** A path parameter of a dashboard post: the visitor's own keys, another account's key, strangers. */
const pathIds = () =>
  fc.oneof(
    fc.constantFrom(...people.ownKeyIds, people.foreignKeyId, "grant_nope", "key_AAAAAAAAAAAAAAAA"),
    hostileString().filter((v) => !LONE_SURROGATE.test(v) && v.length > 0 && encodeURIComponent(v).length <= 100),
  );

/**
 * One payload to an OAuth endpoint (OAuth's error JSON, never 5xx, a success only for what the
 * schema admits) or a dashboard form (403 without the session's CSRF token; a page or a redirect
 * within the dashboard with it). Nothing is ever charged, and another account's key is never touched.
 */
async function peopleCase(ep: Endpoint, p: Payload, id: string): Promise<string[]> {
  const path = ep.path.replace("{id}", encodeURIComponent(id));
  let text: string | undefined;
  let contentType: string | undefined;
  let root: Record<string, unknown> | null;
  if (ep.form) {
    ({ text, contentType, root } = formView(p));
  } else {
    const view = restView(p);
    text = view.text;
    contentType = view.contentType;
    root = view.parsed && isRecord(view.root) && !poisoned(view.root) ? view.root : null;
  }
  const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
  if (ep.kind === "dashboard") headers.cookie = people.visitor.cookieHeader;
  const where = `POST ${path} [${p.label}]`;
  const a = await watch.around(where, () => postRaw(h.url + path, headers, text), () => ({ ok: false, charged: 0 }));
  if (ep.kind === "oauth") {
    const invalid =
      root === null ||
      (!ep.form && (hasIllFormedString(root) || nestedDeeperThan(root, MAX_BODY_DEPTH))) ||
      schemaProblems(ep.schema, root, resolve).length > 0;
    return [invalid ? "invalid" : "merits", checkOAuthAnswer(a, invalid, `${where} ${invalid ? "invalid" : "merits"}`)];
  }
  // Bytes that are no form of an object: any refusal but 5xx; a form: 403 unless it holds the session's token.
  const csrfOk = root === null ? null : root._csrf === people.visitor.csrf;
  // A form over the dashboard's 64 KiB body limit is refused before its token is read.
  const tooLarge = text !== undefined && Buffer.byteLength(text) > 64 * 1024;
  const code = checkDashboardAnswer(a, tooLarge ? null : csrfOk, `${where} csrf=${csrfOk}`);
  return [csrfOk === true ? "csrf-ok" : "forged", code];
}

describe("REST: every body-taking endpoint of the OpenAPI document", () => {
  test("the document's endpoints cover every capability, follow-up and sharpen", () => {
    const caps = endpoints.filter((e) => e.kind === "execute").map((e) => e.capability);
    assert.deepEqual(caps.sort(), Object.keys(registry).sort());
    assert.ok(endpoints.some((e) => e.kind === "follow-up"), "endpoints.some((e) => e.kind === \"follow-up\")");
    assert.ok(endpoints.some((e) => e.kind === "sharpen"), "endpoints.some((e) => e.kind === \"sharpen\")");
    assert.ok(own.searchIds.length > 0 && own.recordIds.length > 0 && foreign.recordIds.length > 0, "own.searchIds.length > 0 && own.recordIds.length > 0 && foreign.recordIds.length > 0");
  });

  // The endpoint list comes from the running service, so each endpoint's property runs in one test.
  test("mutated bodies: 400 envelope with landing pointers, or 2xx / allowed provider failure; never 500; no charge for refusals", async (t) => {
    for (const ep of endpoints) {
      const stats = new Stats();
      await t.test(ep.path, async (st) => {
        const arb = fc.oneof({ weight: 9, arbitrary: bodiesFor(ep) }, { weight: 1, arbitrary: rawPayload() });
        if (ep.kind === "oauth" || ep.kind === "dashboard") {
          // A sign-in checks a password (scrypt, ~0.4 s): fewer runs there.
          const runs = ep.path === "/dashboard/sign-in" ? Math.max(1, Math.round(RUNS / 8)) : perEndpointRuns();
          const withId = fc.tuple(arb, ep.path.includes("{id}") ? pathIds() : fc.constant(""));
          await check(st, withId, async ([p, id]) => stats.add(...(await peopleCase(ep, p, id))), runs);
          st.diagnostic(stats.toString());
          if (runs >= 20) assert.ok(stats.get("invalid") + stats.get("forged") > 0, `${ep.path}: nothing refused`);
          return;
        }
        const own: Payload[] = (ep.capability ? (examples.get(ep.capability) ?? []) : []).map((value) => ({ kind: "json", value, label: "example" }));
        await check(st, arb, async (p) => stats.add(...(await restCase(ep, p))), perEndpointRuns(), own);
        st.diagnostic(stats.toString());
        if (perEndpointRuns() >= 50) {
          assert.ok(stats.get("invalid") > 0, `${ep.path}: the fuzzer produced no invalid body`);
          assert.ok(
            stats.get("valid") + stats.get("merits") > 0,
            `${ep.path}: the fuzzer produced no valid body`,
          );
          // Follow-up successes are rarer (most ids are refused on their merits); ~8 in 200 runs.
          if (ep.kind === "execute" || ep.kind === "sharpen") {
            assert.ok(stats.get("ok") > 0, `${ep.path}: no call succeeded`);
          }
        }
      });
    }
  });

  test("unknown capability ids in the execute path are 404 in the envelope, never 500, never charged", async (t) => {
    const known = new Set(Object.keys(registry));
    const ids = fc
      .oneof(
        fc.constantFrom(...HOSTILE_KEYS, "academic.search.", "ACADEMIC.SEARCH", "academic.search "),
        hostileString(),
      )
      // Within Fastify's 100-character path parameter limit; longer ids are the todo test below.
      .filter((id) => !known.has(id) && !LONE_SURROGATE.test(id) && encodeURIComponent(id).length <= 100);
    await check(
      t,
      fc.tuple(ids, fc.constantFrom(...[...examples.values()].flat())),
      async ([id, body]) => {
        const path = `/v1/capabilities/${encodeURIComponent(id)}/execute`;
        const a = await restCall(path, key, { kind: "json", value: body, label: "example" }, watch);
        const { code } = checkEnvelope(a.json, a.status, path);
        assert.ok(
          code === "capability_unknown" || code === "not_found",
          `${path}: ${code} ${preview(a.text)}`,
        );
      },
      SMALL_RUNS,
    );
  });

  // Found by this fuzzer: Fastify's router errors (bad percent-encoding, a path parameter over 100
  // characters) used to bypass the error handler and echo the raw URL, an MCP key included.
  test("paths with bad percent-encoding or over-long ids answer the envelope and never echo a key", {
  }, async (t) => {
    const bad = fc.oneof(
      fc.constantFrom("%ZZ", "%", "%C0", "%E0%A4%A", "%FF%FE"),
      fc.constantFrom("\ud800", "\udfff").map(encodePathSegment),
      fc.integer({ min: 101, max: 5_000 }).map((n) => "a".repeat(n)),
    );
    await check(
      t,
      fc.tuple(bad, fc.constantFrom("execute", "mcp")),
      async ([segment, where]) => {
        const path = where === "mcp" ? `/mcp/k/${key}${segment}` : `/v1/capabilities/${segment}/execute`;
        const a = await restCall(path, key, { kind: "json", value: {}, label: "bad-url" }, watch);
        assert.ok(!a.text.includes(key), `${path}: the key is echoed: ${preview(a.text)}`);
        const { code } = checkEnvelope(a.json, a.status, path);
        assert.ok(["invalid_request", "not_found", "unauthorized"].includes(code), `${path}: ${code}`);
      },
      SMALL_RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// MCP
// ---------------------------------------------------------------------------------------------

type McpVerdict = Verdict | "protocol" | "unknown-capability" | "found";

function mcpVerdict(tool: string, args: unknown): McpVerdict {
  if (args !== undefined && !isRecord(args)) return "protocol";
  const root = args ?? {};
  const toolSchema = toolSchemas.get(tool);
  assert.ok(toolSchema, `tools/list has no ${tool}`);
  if (hasIllFormedString(root) || nestedDeeperThan(root, MAX_BODY_DEPTH) || poisoned(root)) return "invalid";
  if (tool === "follow_up" || tool === "sharpen") {
    return verdictFor({ kind: tool === "sharpen" ? "sharpen" : "follow-up", schema: toolSchema }, root);
  }
  if (schemaProblems(toolSchema, root, resolve).length > 0) return "invalid";
  const id = tool === "inspect" ? root.id : root.capability;
  const ep = endpoints.find((e) => e.capability === id);
  if (!ep) return "unknown-capability";
  if (tool === "inspect") return "found";
  return verdictFor(ep, root.params);
}

async function mcpCase(tool: string, sentArgs: unknown, label: string): Promise<string[]> {
  const args = mcpView(sentArgs);
  const verdict = mcpVerdict(tool, args);
  const root = args ?? {};
  const where = `MCP ${tool} [${label}] verdict=${verdict}`;
  let isError = true;
  const { answer: a, id } = await watch.around(
    where,
    () => mcpCall(h.url, key, tool, sentArgs),
    ({ answer }) => {
      const result = isRecord(answer.json) && isRecord(answer.json.result) ? answer.json.result : null;
      const success = result !== null && result.isError !== true;
      return { ok: success, charged: tool === "inspect" ? 0 : chargedOf(result?.structuredContent) };
    },
  );
  assert.equal(a.status, 200, `${where}: HTTP ${a.status} ${preview(a.text)}`);
  assert.ok(
    isRecord(a.json) && a.json.jsonrpc === "2.0" && a.json.id === id,
    `${where}: not a JSON-RPC answer: ${preview(a.text)}`,
  );
  if (verdict === "protocol") {
    // Arguments that are not an object never reach the tool: the SDK answers a JSON-RPC error.
    assert.ok(
      isRecord(a.json.error) && typeof a.json.error.code === "number",
      `${where}: ${preview(a.text)}`,
    );
    return [verdict, "rpc-error"];
  }
  const result = a.json.result;
  assert.ok(isRecord(result), `${where}: no tool result: ${preview(a.text)}`);
  isError = result.isError === true;
  assert.ok(Array.isArray(result.content) && result.content.length === 1, `${where}: content`);
  const block = result.content[0] as { type?: unknown; text?: unknown };
  assert.ok(block.type === "text" && typeof block.text === "string", `${where}: content block`);
  assert.deepEqual(
    JSON.parse(block.text),
    result.structuredContent,
    `${where}: text and structuredContent differ`,
  );
  const content = result.structuredContent;
  if (verdict === "unknown-capability") {
    assert.ok(isError, `${where}: an unknown capability succeeded`);
    assert.equal(
      checkEnvelope(content, null, where).code,
      "capability_unknown",
      `${where}: ${preview(content)}`,
    );
    return [verdict, "capability_unknown"];
  }
  if (verdict === "found") {
    assert.ok(!isError, `${where}: inspect of a known capability failed: ${preview(content)}`);
    return [verdict, "ok"];
  }
  const kind: Kind = tool === "sharpen" ? "sharpen" : tool === "follow_up" ? "follow-up" : "execute";
  const capability = tool === "execute" && isRecord(root) && typeof root.capability === "string" ? registry[root.capability] : undefined;
  const checked = (capability?.sourceChecked ?? []).map((f) => `/params/${f}`);
  const code = judge(verdict, !isError, null, content, root, where, allowed5xx(kind), checked);
  if (mustBeUnknown(kind, verdict, root)) checkUnknown(!isError, code, where);
  return [verdict, code];
}

const nonObjectArgs = () =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 2 }),
    fc.integer(),
    fc.string({ maxLength: 5 }),
  );
const jsonOnly = (arb: fc.Arbitrary<Payload>) =>
  arb.filter((p): p is Extract<Payload, { kind: "json" }> => p.kind === "json");

describe("MCP: tools execute, follow_up, sharpen and inspect", () => {
  function toolArgs(tool: string): fc.Arbitrary<[unknown, string]> {
    const schema = toolSchemas.get(tool)!;
    const argLevel = jsonOnly(mutatedBodies(schema, resolve, validBodies(schema, resolve))).map(
      (p): [unknown, string] => [p.value, `args:${p.label}`],
    );
    const odd = nonObjectArgs().map((v): [unknown, string] => [v, "args:non-object"]);
    let main: fc.Arbitrary<[unknown, string]>;
    if (tool === "execute") {
      const caps = endpoints.filter((e) => e.kind === "execute");
      main = fc
        .constantFrom(...caps)
        .chain((ep) =>
          jsonOnly(bodiesFor(ep)).map((p): [unknown, string] => [
            { capability: ep.capability, params: p.value },
            `${ep.capability}:${p.label}`,
          ]),
        );
    } else if (tool === "inspect") {
      main = fc
        .oneof(fc.constantFrom(...Object.keys(registry)), fc.constantFrom(...HOSTILE_KEYS), hostileString())
        .map((id): [unknown, string] => [{ id }, "id"]);
    } else {
      const ep = endpoints.find((e) => e.kind === (tool === "sharpen" ? "sharpen" : "follow-up"))!;
      main = jsonOnly(bodiesFor(ep)).map((p): [unknown, string] => [p.value, p.label]);
    }
    return fc.oneof(
      { weight: 8, arbitrary: main },
      { weight: 2, arbitrary: argLevel },
      { weight: 1, arbitrary: odd },
    );
  }

  for (const tool of ["execute", "follow_up", "sharpen", "inspect"]) {
    test(`${tool}: a result (or an isError envelope with landing pointers), never HTTP 5xx, no charge for errors`, async (t) => {
      const stats = new Stats();
      await check(
        t,
        toolArgs(tool),
        async ([args, label]) => stats.add(...(await mcpCase(tool, args, label))),
        SMALL_RUNS,
      );
      t.diagnostic(stats.toString());
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Cross-field rules of the reference capabilities
// ---------------------------------------------------------------------------------------------

function endpointOf(capability: string): Endpoint {
  const ep = endpoints.find((e) => e.capability === capability);
  assert.ok(ep, `no execute endpoint for ${capability}`);
  return ep;
}

/** A 400 over REST whose violation paths are all in `allowed`; nothing charged (the watch checks). */
async function expectRule(path: string, body: Record<string, unknown>, allowed: Set<string>, what: string) {
  const a = await restCall(path, key, { kind: "json", value: body, label: what }, watch);
  const where = `POST ${path} ${what}`;
  assert.equal(a.status, 400, `${where}: ${preview(a.text)} for ${preview(body)}`);
  const { code, violations } = checkEnvelope(a.json, a.status, where);
  assert.equal(code, "invalid_request");
  for (const p of checkViolations(violations, JSON.parse(JSON.stringify(body)), where)) {
    assert.ok(
      allowed.has(p),
      `${where}: violation at ${JSON.stringify(p)}, expected one of ${[...allowed].join(", ")}`,
    );
  }
}

describe("cross-field rules", () => {
  test("academic.search: from_year > to_year is 400 at /from_year or /to_year (REST and MCP)", async (t) => {
    const ep = endpointOf("academic.search");
    const years = fc
      .tuple(fc.integer({ min: 1000, max: 2100 }), fc.integer({ min: 1000, max: 2100 }))
      .filter(([a, b]) => a !== b)
      .map(([a, b]) => [Math.max(a, b), Math.min(a, b)] as const);
    await check(
      t,
      fc.tuple(validBodies(ep.schema, resolve), years),
      async ([base, [from, to]]) => {
        const body = { ...base, from_year: from, to_year: to };
        assert.deepEqual(schemaProblems(ep.schema, body, resolve), [], "generator: otherwise valid");
        await expectRule(ep.path, body, new Set(["/from_year", "/to_year"]), `years ${from}>${to}`);
        const where = `MCP execute academic years ${from}>${to}`;
        const { answer } = await watch.around(
          where,
          () => mcpCall(h.url, key, "execute", { capability: "academic.search", params: body }),
          () => ({ ok: false, charged: 0 }),
        );
        const result = (answer.json as { result?: { isError?: boolean; structuredContent?: unknown } })
          .result;
        assert.ok(result?.isError === true, `${where}: ${preview(answer.text)}`);
        const { code, violations } = checkEnvelope(result.structuredContent, null, where);
        assert.equal(code, "invalid_request");
        for (const p of checkViolations(violations, { capability: "academic.search", params: body }, where)) {
          assert.ok(p === "/params/from_year" || p === "/params/to_year", `${where}: ${p}`);
        }
      },
      SMALL_RUNS,
    );
  });

  test("recipes.search: zero or several of query|ingredient|category|cuisine is 400", async (t) => {
    const ep = endpointOf("recipes.search");
    const props = ep.schema.properties as Record<string, JsonSchema>;
    const selectorValues = fc.record(
      Object.fromEntries(RECIPE_SELECTORS.map((s) => [s, validValue(props[s]!, resolve)])) as Record<
        string,
        fc.Arbitrary<unknown>
      >,
    );
    const chosen = fc.oneof(fc.constant<string[]>([]), fc.subarray(RECIPE_SELECTORS, { minLength: 2 }));
    await check(
      t,
      fc.tuple(validBodies(ep.schema, resolve), selectorValues, chosen),
      async ([base, values, given]) => {
        const body: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(base)) if (!RECIPE_SELECTORS.includes(k)) setOwn(body, k, v);
        for (const s of given) setOwn(body, s, values[s]);
        const allowed = new Set(["", ...given.map((s) => `/${pointerToken(s)}`)]);
        await expectRule(ep.path, body, allowed, `selectors [${given.join(",")}]`);
      },
      SMALL_RUNS,
    );
  });

  test("follow-up: both or neither of search_id and record_id is 400", async (t) => {
    const ep = endpoints.find((e) => e.kind === "follow-up")!;
    const both = fc
      .tuple(idPool("search"), idPool("record"), fc.constantFrom("more", "details", "update"))
      .filter(([s, r]) => typeof s === "string" && typeof r === "string")
      .map(([search_id, record_id, action]) => ({ search_id, record_id, action }));
    const neither = fc
      .tuple(fc.constantFrom("more", "details", "update"), fc.option(paramsPool(), { nil: undefined }))
      .map(([action, params]) => ({ action, ...(params === undefined ? {} : { params }) }))
      // Ill-formed strings and prototype keys in params are refused on their own pointers (the body
      // parser refuses `/params/__proto__` before any handler); this property is about the ids.
      .filter((body) => !hasIllFormedString(body) && !nestedDeeperThan(body, MAX_BODY_DEPTH) && !poisoned(body));
    await check(
      t,
      fc.oneof(both, neither),
      async (body) => {
        await expectRule(ep.path, body, new Set(["", "/search_id", "/record_id", "/params"]), "one-of ids");
      },
      SMALL_RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Valid but hostile bodies, answered by a catch-all upstream: they must be served AND stored
// ---------------------------------------------------------------------------------------------

/** A valid body whose string fields are, where the schema allows, hostile (NUL, lone surrogates, RTL, emoji…). */
function hostileValidBodies(ep: Endpoint): fc.Arbitrary<Record<string, unknown>> {
  const props = isRecord(ep.schema.properties) ? (ep.schema.properties as Record<string, JsonSchema>) : {};
  const fields = Object.keys(props).filter(
    (k) => props[k]!.type === "string" && !Array.isArray(props[k]!.enum),
  );
  // Built only when there is a top-level string field (fc.constantFrom() of nothing throws): a body
  // whose strings sit in a nested object (legal.search's `search`) is fuzzed with valid values alone.
  const edits =
    fields.length > 0
      ? fc.array(fc.tuple(fc.constantFrom(...fields), hostileString()), { minLength: 1, maxLength: 3 })
      : fc.constant<[string, string][]>([]);
  return fc
    .tuple(validBodies(ep.schema, resolve), edits)
    .map(([base, list]) => {
      const out = copyObject(base);
      for (const [k, v] of list) {
        if (!Object.hasOwn(out, k) && ep.capability === "recipes.search") continue;
        const trial = copyObject(out);
        setOwn(trial, k, v);
        if (verdictFor(ep, trial) === "valid") setOwn(out, k, v);
      }
      return out;
    })
    .filter((b) => verdictFor(ep, b) === "valid");
}

/**
 * The one refusal a valid body may get from a catch-all upstream: values the schema allows (16,384
 * characters of emoji in a token) that make a URL over UPSTREAM_MAX_URL_BYTES, refused before sending
 * (src/upstream/client.ts), not retryable. ChargeWatch has already checked it charged nothing.
 */
function urlTooLong(json: unknown): boolean {
  const error = isRecord(json) && isRecord(json.error) ? json.error : null;
  return error?.code === "provider_error" && error.retryable === false && /would need a URL of \d+ bytes/.test(String(error.message));
}

describe("valid hostile bodies with a catch-all upstream", () => {
  let wild: Harness;
  let wildKey: string;
  let wildWatch: ChargeWatch;
  let cleanup: () => void;
  let closeReplay: () => Promise<void>;

  before(async () => {
    const fixtures = wildcardFixtures();
    cleanup = fixtures.cleanup;
    const replay = await startReplay({ fixturesDir: fixtures.dir });
    closeReplay = () => replay.close();
    wild = await startHarness({ replay, env: { QUARRY_PLANS: PLANS } });
    const account = await wild.account("free");
    wildKey = account.key;
    wildWatch = new ChargeWatch(wild.store, account.accountId);
  });
  after(async () => {
    await wild?.close();
    await closeReplay?.();
    cleanup?.();
  });

  // Found by this fuzzer on PostgreSQL: a string holding NUL or a lone surrogate used to reach jsonb
  // (22P05, a 500). Such strings are now refused at validation; provider data is sanitized.
  test("execute (REST or MCP) answers 200 and charges exactly; update {} re-runs the stored query; details never 500", {
  }, async (t) => {
    // The capabilities whose searches the catch-all recordings answer (fuzz-replay.ts); the others are
    // fuzzed by the mutated-bodies property above, where a provider's refusal is an allowed answer.
    const caps = endpoints.filter((e) => e.kind === "execute" && CATCH_ALL_CAPABILITIES.has(e.capability!)).map((e) => e.capability!);
    const arb = fc
      .constantFrom(...caps)
      .chain((cap) => fc.tuple(fc.constant(cap), hostileValidBodies(endpointOf(cap)), fc.boolean()));
    const stats = new Stats();
    await check(
      t,
      arb,
      async ([cap, body, overMcp]) => {
        const ep = endpointOf(cap);
        const where = `${overMcp ? "MCP" : "REST"} ${ep.capability} ${preview(body)}`;
        const sent = JSON.parse(JSON.stringify(body)) as unknown;
        let json: unknown;
        if (overMcp) {
          const { answer } = await wildWatch.around(
            where,
            () => mcpCall(wild.url, wildKey, "execute", { capability: ep.capability, params: body }),
            ({ answer: a }) => {
              const r = isRecord(a.json) && isRecord(a.json.result) ? a.json.result : null;
              return { ok: r !== null && r.isError !== true, charged: chargedOf(r?.structuredContent) };
            },
          );
          const result = isRecord(answer.json) && isRecord(answer.json.result) ? answer.json.result : null;
          if (result?.isError === true && urlTooLong(result.structuredContent)) return;
          assert.ok(result && result.isError !== true, `${where}: ${preview(answer.text)}`);
          json = result.structuredContent;
        } else {
          const a = await wildWatch.around(
            where,
            () => restPost(wild.url, ep.path, wildKey, { kind: "json", value: body, label: "hostile-valid" }),
            (x) => ({ ok: x.status === 200, charged: chargedOf(x.json) }),
          );
          if (a.status === 502 && urlTooLong(a.json)) return;
          assert.equal(a.status, 200, `${where}: ${preview(a.text)}`);
          json = a.json;
        }
        assert.ok(isRecord(json) && typeof json.search_id === "string", `${where}: ${preview(json)}`);
        stats.add(ep.capability!);
        // The stored query is read back and re-run: it must have survived the store unchanged
        // (where update is offered: spec 4.6 gives some capabilities none, e.g. flights.search).
        const update = !registry[cap]!.offersUpdate ? null : await wildWatch.around(
          `${where} update {}`,
          () =>
            restPost(wild.url, "/v1/follow-up", wildKey, {
              kind: "json",
              value: { search_id: json.search_id, action: "update", params: {} },
              label: "update",
            }),
          (x) => ({ ok: x.status === 200, charged: chargedOf(x.json) }),
        );
        if (update !== null) {
          assert.equal(update.status, 200, `${where} update {}: ${preview(update.text)} (sent ${preview(sent)})`);
        }
        const results = (json.results as { record_id: string }[] | undefined) ?? [];
        if (results.length > 0) {
          const details = await wildWatch.around(
            `${where} details`,
            () =>
              restPost(wild.url, "/v1/follow-up", wildKey, {
                kind: "json",
                value: { record_id: results[0]!.record_id, action: "details" },
                label: "details",
              }),
            (x) => ({ ok: x.status === 200, charged: chargedOf(x.json) }),
          );
          judge(
            "merits",
            details.status === 200,
            details.status,
            details.json,
            {},
            `${where} details`,
            PROVIDER_5XX,
          );
        }
      },
      Math.max(1, Math.round(RUNS / 2)),
    );
    t.diagnostic(stats.toString());
    await wildWatch.assertTotals();
  });
});

test("the ledger holds exactly the charged_credits of the successes, nothing else", async () => {
  await watch.assertTotals();
});

describe("people: the OAuth authorization endpoint and isolation", () => {
  test("GET /oauth/authorize: a page, the consent, or the registered redirect URI; never elsewhere, never 5xx", async (t) => {
    const mostly = <T>(real: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: real }, { weight: 1, arbitrary: hostileString() });
    const value = (real: fc.Arbitrary<string>) => fc.oneof({ weight: 6, arbitrary: mostly(real) }, { weight: 1, arbitrary: fc.array(real, { minLength: 2, maxLength: 2 }) });
    const query = fc.record(
      {
        response_type: value(fc.constantFrom("code", "code", "code", "token", "")),
        client_id: value(fc.constantFrom(people.clientId, "qc_nope")),
        redirect_uri: value(fc.constantFrom(people.redirect, "http://127.0.0.1:9/cb", "https://evil.example/cb", "javascript:alert(1)")),
        code_challenge: value(fc.constantFrom("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "short")),
        code_challenge_method: value(fc.constantFrom("S256", "S256", "S256", "plain", "s256")),
        state: value(fc.constantFrom("s", "x".repeat(2000))),
        scope: value(fc.constantFrom("quarry", "openid profile")),
        resource: value(fc.constantFrom(h.url, "https://evil.example/")),
      },
      { requiredKeys: [] },
    );
    const stats = new Stats();
    await check(
      t,
      query,
      async (q) => {
        const params = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one).toWellFormed());
        const where = `GET /oauth/authorize?${preview(params.toString())}`;
        const res = await fetch(`${h.url}/oauth/authorize?${params}`, { redirect: "manual", headers: { cookie: people.visitor.cookieHeader } });
        await res.body?.cancel();
        assert.ok([302, 303, 400].includes(res.status), `${where}: HTTP ${res.status}`);
        const location = res.headers.get("location");
        if (res.status === 302) {
          const target = new URL(location!);
          assert.ok(redirectUriMatches(`${target.origin}${target.pathname}`, people.redirect), `${where}: sent to ${location}`);
          assert.ok(target.searchParams.get("error"), `${where}: a redirect without an error`);
        }
        if (res.status === 303) assert.equal(location, "/dashboard/authorize", where);
        if (res.status === 400) assert.equal(location, null, where);
        stats.add(String(res.status));
      },
      SMALL_RUNS,
    );
    t.diagnostic(stats.toString());
  });

  test("after all of it, the other account's key still works and nothing was charged to it", async () => {
    const res = await h.call("GET", "/v1/account", { key });
    assert.equal(res.status, 200, "the dashboard never revoked another account's key");
    await watch.assertTotals();
  });
});
