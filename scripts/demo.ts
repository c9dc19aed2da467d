/**
 * `npm run demo`: Quarry fully offline. Starts the replay upstream (recorded provider responses),
 * a simulated Sharpen reviewer, and the gateway on the embedded store with
 * every provider base URL pointed at the replay; then prints a ready key and copy-paste calls.
 *
 * `npm run demo -- --check` runs every capability's first inspect example and its follow-ups over
 * HTTP instead of waiting, prints one line per call and exits 0 only if all succeeded: the
 * one-command proof for a newcomer or CI that the demo works.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AccountService } from "../src/accounts/accounts.ts";
import { DEFAULT_PLANS, type Plan } from "../src/config.ts";
import { registry } from "../src/capabilities/registry.ts";
import { fitResult } from "../src/mcp/fit.ts";
import type { JsonObject } from "../src/capabilities/types.ts";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { replayEnvironment } from "../src/demo/replay/replay-env.ts";
import { answeredByStandInPage, UNHELD_NOTE_PREFIX } from "../src/demo/replay/replay-headers.ts";
import { type RunningQuarry, startQuarry } from "../src/runtime.ts";
import { simulatedSharpenEnv, startModelSimulator } from "../src/demo/model-simulator.ts";

const DEMO_PLAN = "demo";

/**
 * The plans of a demo whose environment names none: the built-in ones plus "demo", Pro's entitlement
 * with room for `--check`, which calls every capability's inspect, examples and follow-ups in a
 * minute or two (some 200 calls: past Pro's 60 a minute).
 */
const DEMO_PLANS: Plan[] = [
  ...DEFAULT_PLANS,
  { ...DEFAULT_PLANS.find((p) => p.id === "pro")!, id: "demo", name: "Demo", credits: 100_000, rateLimitPerMinute: 1_200 },
];

const HELP = `Usage: npm run demo [-- --check]

Runs Quarry offline against recorded provider responses and prints a ready API key and example calls.
  --check     run every capability's example, its follow-ups (and Sharpen when simulated) over HTTP,
              print one line per call, stop, and exit 0 only if all succeeded
  -h, --help  this help

Environment: PORT (default 8080; 0 picks a free port), DEMO_DATA_DIR (keep the store between runs;
default: a fresh temporary directory removed on exit), LOG_LEVEL (default warn).`;

// --- Simulated Sharpen reviewer ------------------------------------------------------------------

interface SimulatedReviewer {
  url: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Start the loopback model simulator (labelled simulated in every review) for Sharpen. */
async function startSimulatedReviewer(): Promise<SimulatedReviewer> {
  const sim = await startModelSimulator();
  return { url: sim.url, env: simulatedSharpenEnv(sim.url), close: () => sim.close() };
}

// --- Starting and stopping ------------------------------------------------------------------------

interface Demo {
  quarry: RunningQuarry;
  replay: ReplayServer;
  reviewer: SimulatedReviewer | string;
  key: string;
  accountName: string;
  plan: Plan;
  dataDir: string;
  /** The data directory is ours (a fresh temp dir) and goes when the demo stops. */
  removeDataDir: boolean;
  stop(): Promise<void>;
}

/** The demo plan (`demo` by default; the plan with the most credits if plans are customised). */
function demoPlan(plans: Plan[]): Plan {
  return plans.find((p) => p.id === DEMO_PLAN) ?? [...plans].sort((a, b) => b.credits - a.credits)[0]!;
}

/** A key on an account of the demo plan: the first-start account on a fresh store, else a "demo" account. */
async function demoKey(quarry: RunningQuarry, plan: Plan): Promise<{ key: string; accountName: string }> {
  const accounts: AccountService = quarry.app.services.accounts;
  if (quarry.firstKey !== null) {
    const caller = await accounts.authenticate(quarry.firstKey);
    await accounts.setPlan(caller.account.id, plan.id);
    return { key: quarry.firstKey, accountName: caller.account.name };
  }
  // A kept store (DEMO_DATA_DIR): keys are stored hashed, so the only way to print one is a new key.
  const existing = (await quarry.store.listAccounts()).find((a) => a.name === "demo");
  const account = existing ?? (await accounts.createAccount("demo", plan.id));
  if (existing && existing.planId !== plan.id) await accounts.setPlan(existing.id, plan.id);
  const { key } = await accounts.createKey(account.id, `demo ${new Date().toISOString()}`);
  return { key, accountName: account.name };
}

async function startDemo(): Promise<Demo> {
  const replay = await startReplay();
  let reviewer: SimulatedReviewer | string = "not started";
  let quarry: RunningQuarry | null = null;
  const keptDir = process.env.DEMO_DATA_DIR;
  const dataDir = keptDir || mkdtempSync(join(tmpdir(), "quarry-demo-"));
  const removeDataDir = !keptDir;

  const cleanup = async () => {
    await quarry?.stop().catch(() => undefined);
    await replay.close().catch(() => undefined);
    if (typeof reviewer !== "string") await reviewer.close().catch(() => undefined);
    if (removeDataDir) rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    reviewer = await startSimulatedReviewer();
    const env: Record<string, string | undefined> = {
      ...process.env,
      // The demo's own log level: request lines would bury the instructions printed below.
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      ...replayEnvironment(replay.url),
      ...(typeof reviewer === "string" ? {} : reviewer.env),
      QUARRY_DEMO: "1",
      ...(process.env.QUARRY_PLANS || process.env.QUARRY_PLANS_FILE ? {} : { QUARRY_PLANS: JSON.stringify(DEMO_PLANS) }),
      DATA_DIR: dataDir,
      PORT: process.env.PORT ?? "8080",
      HOST: "127.0.0.1",
    };
    // The demo is always embedded and single-instance, whatever the shell points at.
    delete env.DATABASE_URL;
    delete env.REDIS_URL;

    quarry = await startQuarry(env);
    const plan = demoPlan(quarry.config.plans);
    const { key, accountName } = await demoKey(quarry, plan);
    return { quarry, replay, reviewer, key, accountName, plan, dataDir, removeDataDir, stop: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

// --- Printing the instructions --------------------------------------------------------------------

/** Single-quote for a POSIX shell (a `'` inside becomes `'\''`). */
function sq(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function curlGet(url: string, key: string): string {
  return `curl -s ${url} -H ${sq(`Authorization: Bearer ${key}`)}`;
}

function curlPost(url: string, key: string, body: string): string {
  return `curl -s -X POST ${url} -H ${sq(`Authorization: Bearer ${key}`)} -H 'Content-Type: application/json' -d ${body}`;
}

/** A shell pipe that prints one field of the JSON answer (node is there: it runs this demo). */
function pick(expression: string): string {
  return `node -pe ${sq(`JSON.parse(require("fs").readFileSync(0, "utf8")).${expression}`)}`;
}

function printHeader(demo: Demo): void {
  const { quarry, replay } = demo;
  console.log(`Quarry demo running at ${quarry.url}`);
  console.log("");
  console.log(
    "  RECORDED DEMO DATA: every answer is built from recorded provider responses, not live sources.",
  );
  console.log(`  (The replay upstream at ${replay.url} serves them; provider keys are placeholders.)`);
  console.log(
    [
      "  Recorded: the example bodies shown by inspect and the follow-ups `--check` runs (a next page,",
      "  details of the first result, the update example). Other queries, pages past the recorded items",
      "  and details of most records have no recording and answer 502 provider_error.",
      "  Pages (web.read, web.search's `read`): DEMO copies served by the replay upstream, read by the real",
      "  reader through its allow-list of the replay's address; an address with no copy gets a stand-in page",
      "  that says so. Every such answer carries a DEMO note.",
    ].join("\n"),
  );
  console.log("");
  console.log(
    `  API key (account "${demo.accountName}", plan ${demo.plan.id}: ${demo.plan.credits} credits):`,
  );
  console.log(`    ${demo.key}`);
  console.log(
    `  Data: ${demo.dataDir}${demo.removeDataDir ? " (a fresh store, removed on exit; set DEMO_DATA_DIR to keep one)" : ""}`,
  );
  if (typeof demo.reviewer === "string") {
    console.log(`  Sharpen: not configured in this demo (${demo.reviewer}).`);
  } else {
    console.log(
      `  Sharpen: SIMULATED reviewers (${demo.reviewer.url}); their reviews are canned text, no real model is called.`,
    );
  }
  console.log("");
}

type AnyCapability = (typeof registry)[string];

/**
 * A capability and example whose answer has more results, so the printed `more` call shows a next
 * page rather than an empty one. Found by asking the demo itself (recordings decide, not the code).
 */
/** The titles of a page of results, to tell two pages apart. */
function titles(res: CallResult): string {
  return JSON.stringify(asArray(res.body.results).map((r) => asObject(r).title));
}

/**
 * An example whose `more` really gives the next page here. Local paging first: its pages come from
 * the stored session. A provider-paged capability pages only as far as its recordings do (a
 * windowed recording answers the pages inside the items it holds; one without a window is served
 * for every page), so the second page is fetched and compared before the example is printed.
 */
async function findPagedExample(demo: Demo): Promise<{ cap: AnyCapability; body: JsonObject } | null> {
  const caps = Object.values(registry).filter((cap) => cap.paging !== "single");
  caps.sort((a, b) => Number(b.paging === "local") - Number(a.paging === "local"));
  for (const cap of caps) {
    for (const example of cap.examples) {
      const first = await call(demo, "POST", `/v1/capabilities/${cap.id}/execute`, example.body).catch(() => null);
      if (first?.status !== 200 || first.body.has_more !== true) continue;
      const next = await call(demo, "POST", "/v1/follow-up", { search_id: String(first.body.search_id), action: "more" }).catch(
        () => null,
      );
      if (next?.status === 200 && asArray(next.body.results).length > 0 && titles(next) !== titles(first)) {
        return { cap, body: example.body };
      }
    }
  }
  return null;
}

function printExamples(demo: Demo, paged: { cap: AnyCapability; body: JsonObject } | null): void {
  const { url } = demo.quarry;
  const key = demo.key;
  const caps = Object.values(registry);
  const lines: string[] = [];
  const add = (...more: string[]) => lines.push(...more);

  add("Copy and paste:", "");
  add("# What can this key call? (capabilities, availability, Sharpen entitlement, orientation text)");
  add(curlGet(`${url}/v1/catalog`, key), "");
  const first = caps[0]!;
  add(`# One capability's request schema, follow-ups, examples and cost`);
  add(curlGet(`${url}/v1/capabilities/${first.id}`, key), "");

  add("# Execute each capability with the first example from its inspect answer");
  for (const cap of caps) {
    const example = cap.examples[0];
    if (!example) continue;
    add(`# ${cap.id}: ${example.title}`);
    add(curlPost(`${url}/v1/capabilities/${cap.id}/execute`, key, sq(JSON.stringify(example.body))));
  }
  add("");

  add(
    "# Follow-ups take their ids from an execute answer: `search_id` for `more`/`update`, and",
    "# `results[i].record_id` for record actions such as `details`. Each answer's `next.example` is a",
    "# ready follow-up body. These lines capture the ids for you:",
  );
  if (paged) {
    const body = sq(JSON.stringify(paged.body));
    add(`# Next page of ${paged.cap.id} results (${paged.cap.paging} paging)`);
    add(
      `SEARCH_ID=$(${curlPost(`${url}/v1/capabilities/${paged.cap.id}/execute`, key, body)} | ${pick("search_id")})`,
    );
    add(curlPost(`${url}/v1/follow-up`, key, `'{"search_id":"'"$SEARCH_ID"'","action":"more"}'`));
  }
  const updated = caps.find((c) => c.updateExample !== undefined && c.examples[0]);
  if (updated) {
    const body = sq(JSON.stringify(updated.examples[0]!.body));
    const params = JSON.stringify(updated.updateExample!.params);
    add(`# ${updated.id} update (params merged, paging reset, same search_id): ${updated.updateExample!.title}`);
    add(`SEARCH_ID=$(${curlPost(`${url}/v1/capabilities/${updated.id}/execute`, key, body)} | ${pick("search_id")})`);
    add(curlPost(`${url}/v1/follow-up`, key, `'{"search_id":"'"$SEARCH_ID"'","action":"update","params":${params}}'`));
  }
  const detailed = caps.find((c) => "details" in c.actions && c.examples[0]);
  if (detailed) {
    const body = sq(JSON.stringify(detailed.examples[0]!.body));
    add(`# Details of the first ${detailed.id} result`);
    add(
      `RECORD_ID=$(${curlPost(`${url}/v1/capabilities/${detailed.id}/execute`, key, body)} | ${pick("results[0].record_id")})`,
    );
    add(curlPost(`${url}/v1/follow-up`, key, `'{"record_id":"'"$RECORD_ID"'","action":"details"}'`));
  }
  add("");

  add("# The account: plan, status, credits used and cap");
  add(curlGet(`${url}/v1/account`, key), "");

  if (typeof demo.reviewer !== "string") {
    add("# Sharpen: a second opinion on a draft (simulated reviewer in this demo)");
    add(curlPost(`${url}/v1/sharpen`, key, sq(JSON.stringify(SHARPEN_EXAMPLE))), "");
  }

  add("# MCP (Streamable HTTP, stateless), two ways to pass the key:");
  add(`#   ${url}/mcp            with header  Authorization: Bearer ${key}`);
  add(`#   ${url}/mcp/k/${key}   (for hosts that cannot set headers; the URL is a secret)`);
  const mcpFirst = caps.find((c) => c.examples[0]);
  if (mcpFirst) {
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "execute", arguments: { capability: mcpFirst.id, params: mcpFirst.examples[0]!.body } },
    };
    add(`# An MCP tool call by hand (${mcpFirst.id} through the execute tool; tools/list names every tool):`);
    add(
      `curl -s -X POST ${url}/mcp -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' ` +
        `-H 'Accept: application/json, text/event-stream' -d ${sq(JSON.stringify(call))}`,
    );
  }
  add("");
  add("Press Ctrl+C to stop.");
  console.log(lines.join("\n"));
}

const SHARPEN_EXAMPLE = {
  task: "In two sentences, what does the open access citation advantage claim?",
  draft:
    "Open access articles are said to be cited more often than paywalled ones. Studies disagree on how large the effect is.",
  caller_provider: "other",
};

// --- --check --------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

interface CallResult {
  status: number;
  body: Json;
}

function asObject(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

async function call(
  demo: Demo,
  method: "GET" | "POST",
  path: string,
  body?: JsonObject,
): Promise<CallResult> {
  const res = await fetch(`${demo.quarry.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${demo.key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { raw: text.slice(0, 200) };
  }
  return { status: res.status, body: asObject(parsed) };
}

/** `provider_error: message` from an error envelope, for a failure line. */
function errorText(res: CallResult): string {
  const error = asObject(res.body.error);
  return typeof error.code === "string"
    ? `${error.code}: ${String(error.message)}`
    : JSON.stringify(res.body).slice(0, 200);
}

class Checker {
  passed = 0;
  failed = 0;
  /** Answers served from a recording of another variant of the request (their notes say so). */
  unheld = 0;
  /** The largest answer (characters of JSON): what the same call answers as an MCP tool result before it is fitted. */
  largest = { chars: 0, label: "", body: {} as Json };

  /** Run one call, print its line; returns the answer when it succeeded. */
  async run(
    label: string,
    doCall: () => Promise<CallResult>,
    describe: (res: CallResult) => { ok: boolean; note: string },
    /** A non-200 answer `describe` judges too (an honest "no recording"); others fail. */
    judged?: (res: CallResult) => boolean,
  ): Promise<CallResult | null> {
    let res: CallResult;
    try {
      res = await doCall();
    } catch (error) {
      this.failed += 1;
      console.log(`FAIL  ${label}  ${(error as Error).message}`);
      return null;
    }
    const chars = JSON.stringify(res.body).length;
    if (res.status === 200 && chars > this.largest.chars) this.largest = { chars, label, body: res.body };
    const verdict = res.status === 200 || judged?.(res) ? describe(res) : { ok: false, note: errorText(res) };
    if (verdict.ok) this.passed += 1;
    else this.failed += 1;
    console.log(`${verdict.ok ? "ok  " : "FAIL"}  ${label}  ${res.status}  ${verdict.note}`);
    const demoNote = asArray(res.body.notes).find((n) => typeof n === "string" && n.startsWith(UNHELD_NOTE_PREFIX));
    if (demoNote !== undefined) {
      this.unheld += 1;
      console.log(`      note: ${String(demoNote)}`);
    }
    return verdict.ok ? res : null;
  }
}

function results(res: CallResult): string {
  const count = asArray(res.body.results).length;
  return `${count} result${count === 1 ? "" : "s"}`;
}

function resultNote(res: CallResult, body: JsonObject): string {
  return `${results(res)} for ${JSON.stringify(body)}${res.body.has_more === true ? ", more available" : ""}, ${charge(res)}`;
}

function charge(res: CallResult): string {
  return `charged ${String(res.body.charged_credits)}`;
}

async function runCheck(demo: Demo): Promise<boolean> {
  const checker = new Checker();
  const caps = Object.values(registry);
  console.log(
    `Checking the demo: every capability's first example and its follow-ups, over HTTP at ${demo.quarry.url}`,
  );
  console.log("");

  await checker.run(
    "GET  /v1/catalog",
    () => call(demo, "GET", "/v1/catalog"),
    (res) => {
      const listed = asArray(res.body.capabilities).map((c) => String(asObject(c).id));
      const missing = caps.filter((c) => !listed.includes(c.id)).map((c) => c.id);
      const recorded = String(res.body.instructions).includes("recorded demo data");
      return {
        ok: missing.length === 0 && recorded,
        note:
          missing.length > 0
            ? `missing from the catalog: ${missing.join(", ")}`
            : recorded
              ? `${listed.length} capabilities; instructions say answers are recorded demo data`
              : "instructions do not mention recorded demo data",
      };
    },
  );

  for (const cap of caps) {
    await checker.run(
      `GET  /v1/capabilities/${cap.id}`,
      () => call(demo, "GET", `/v1/capabilities/${cap.id}`),
      (res) => ({
        ok: res.body.available === true && asArray(res.body.examples).length > 0,
        note: res.body.available === true ? `${asArray(res.body.examples).length} examples` : "not available",
      }),
    );
    const example = cap.examples[0];
    if (!example) {
      checker.failed += 1;
      console.log(`FAIL  ${cap.id}  has no example to execute`);
      continue;
    }
    const executed = await checker.run(
      `POST ${cap.id} execute`,
      () => call(demo, "POST", `/v1/capabilities/${cap.id}/execute`, example.body),
      (res) => ({ ok: asArray(res.body.results).length > 0, note: resultNote(res, example.body) }),
    );
    if (!executed) continue;

    // `more` needs a search with more results; when the first example fits on one page, try the others.
    let paged: CallResult | null = executed.body.has_more === true ? executed : null;
    if (cap.paging !== "single") {
      for (const [i, other] of cap.examples.entries()) {
        if (paged || i === 0) continue;
        paged = await checker.run(
          `POST ${cap.id} execute (example ${i + 1})`,
          () => call(demo, "POST", `/v1/capabilities/${cap.id}/execute`, other.body),
          (res) => ({ ok: asArray(res.body.results).length > 0, note: resultNote(res, other.body) }),
        );
        if (paged && paged.body.has_more !== true) paged = null;
      }
    }
    if (paged) {
      const searchId = String(paged.body.search_id);
      const firstPage = paged;
      const next = await call(demo, "POST", "/v1/follow-up", { search_id: searchId, action: "more" });
      // Offset-paged recordings answer the pages inside what they hold (fixture-index.ts, PageWindow).
      await checker.run(
        `POST ${cap.id} follow-up more`,
        async () => next,
        (res) =>
          // A next page the recordings do not hold is answered plainly (search providers that report no
          // total, such as Serper, offer a next page whenever one may follow).
          /No recording of this request in the offline demo/.test(JSON.stringify(res.body))
            ? { ok: true, note: "the next page has no recording: said plainly" }
            : { ok: asArray(res.body.results).length > 0 && titles(res) !== titles(firstPage), note: `next page: ${results(res)}, ${charge(res)}` },
        (res) => res.status === 502 && /No recording of this request in the offline demo/.test(JSON.stringify(res.body)),
      );
    } else {
      const why = cap.paging === "single" ? "single-result capability" : "no example answer has more results";
      console.log(`--    ${cap.id} follow-up more  skipped: ${why}`);
    }

    const actions = asArray(executed.body.record_actions).map(String);
    const action = actions.includes("details") ? "details" : actions[0];
    const recordId = asObject(asArray(executed.body.results)[0]).record_id;
    if (action !== undefined && typeof recordId === "string") {
      await checker.run(
        `POST ${cap.id} follow-up ${action}`,
        () => call(demo, "POST", "/v1/follow-up", { record_id: recordId, action }),
        (res) => ({
          ok: res.body.detail !== undefined && res.body.detail !== null,
          note: `detail of ${recordId} (${asArray(res.body.links).length} links), ${charge(res)}${res.body.cached === true ? ", cached" : ""}`,
        }),
      );
      // The rest of the first page: each answers its detail from a recording, or says plainly that
      // the offline demo has none for it (never a provider error with a retry hint).
      const others = asArray(executed.body.results).slice(1).map((r) => asObject(r).record_id).filter((id) => typeof id === "string");
      if (others.length > 0) {
        let recorded = 0;
        let missing = 0;
        let standIns = 0;
        // Answered from a recording of another record (a stand-in token): the replay's log says so.
        let fromOthers = 0;
        await checker.run(
          `POST ${cap.id} follow-up ${action} (every other first-page record)`,
          async () => {
            for (const id of others) {
              const seen = demo.replay.requests.length;
              const res = await call(demo, "POST", "/v1/follow-up", { record_id: id, action });
              const served = demo.replay.requests.slice(seen);
              const loose = served.some((r) => r.unheld.length > 0);
              if (res.status === 200 && served.some((r) => answeredByStandInPage(r.unheld))) standIns += 1;
              else if (res.status === 200 && loose) fromOthers += 1;
              else if (res.status === 200) recorded += 1;
              else if (/No recording of this request in the offline demo/.test(JSON.stringify(res.body))) missing += 1;
              else return res;
            }
            return { status: 200, body: { recorded, missing } };
          },
          (res) => ({
            ok: res.status === 200 && recorded + fromOthers + standIns + missing === others.length,
            note:
              `${recorded} answered from recordings, ${missing} said plainly that the demo has no recording` +
              (fromOthers > 0 ? `, ${fromOthers} answered from the recording of another record` : "") +
              (standIns > 0 ? `, ${standIns} read the demo's stand-in page (their notes say so)` : ""),
          }),
        );
      }
    } else {
      console.log(`--    ${cap.id} record action  skipped: the capability has no record actions`);
    }

    // Last: an update re-runs the search under the same id and resets its paging.
    const update = cap.updateExample;
    if (cap.offersUpdate && update !== undefined) {
      const searchId = String(executed.body.search_id);
      await checker.run(
        `POST ${cap.id} follow-up update`,
        () => call(demo, "POST", "/v1/follow-up", { search_id: searchId, action: "update", params: update.params }),
        (res) => ({
          ok: res.body.search_id === searchId && asArray(res.body.results).length > 0,
          note: `${results(res)} for params ${JSON.stringify(update.params)}, same search_id, ${charge(res)}`,
        }),
      );
    } else if (cap.offersUpdate) {
      checker.failed += 1;
      console.log(`FAIL  ${cap.id}  offers update but has no updateExample`);
    } else {
      console.log(`--    ${cap.id} follow-up update  skipped: not offered`);
    }
  }

  if (typeof demo.reviewer !== "string") {
    await checker.run(
      "POST /v1/sharpen (simulated reviewer)",
      () => call(demo, "POST", "/v1/sharpen", SHARPEN_EXAMPLE),
      (res) => {
        const reviews = asArray(res.body.reviews);
        return {
          ok: reviews.length > 0,
          note: `${reviews.length} review(s) at tier ${String(res.body.tier)}, ${charge(res)}`,
        };
      },
    );
  } else {
    console.log(`--    sharpen  skipped: ${demo.reviewer}`);
  }

  await checker.run(
    "GET  /v1/account",
    () => call(demo, "GET", "/v1/account"),
    (res) => {
      const credits = asObject(res.body.credits);
      return {
        ok: typeof credits.used === "number",
        note: `credits used ${String(credits.used)} of ${String(credits.cap)}`,
      };
    },
  );

  console.log("");
  // MCP answers the same JSON, fitted to MCP_MAX_RESULT_CHARS (src/mcp/fit.ts): its size there too.
  const fitted = JSON.stringify(fitResult(checker.largest.body, demo.quarry.config.mcp.maxResultChars)).length;
  console.log(
    `Largest answer: ${checker.largest.chars.toLocaleString("en-US")} characters (${checker.largest.label}); as an MCP tool result, ` +
      `with MCP_MAX_RESULT_CHARS ${demo.quarry.config.mcp.maxResultChars.toLocaleString("en-US")}: ${fitted.toLocaleString("en-US")} characters.`,
  );
  const total = checker.passed + checker.failed;
  console.log(
    checker.failed === 0
      ? `All ${total} demo calls succeeded (answers are recorded demo data; ${checker.unheld} came from a recording made for another variant of the request, as their notes say).`
      : `${checker.failed} of ${total} demo calls FAILED.`,
  );
  return checker.failed === 0;
}

// --- Main -----------------------------------------------------------------------------------------

async function main(): Promise<number> {
  let options: { check?: boolean; help?: boolean };
  try {
    options = parseArgs({
      options: { check: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`demo: ${(error as Error).message}\n\n${HELP}`);
    return 1;
  }
  if (options.help) {
    console.log(HELP);
    return 0;
  }

  let demo: Demo;
  try {
    demo = await startDemo();
  } catch (error) {
    const message = (error as Error).message;
    const hint = /EADDRINUSE/.test(message)
      ? " (another process uses this port: set PORT, or PORT=0 for a free one)"
      : "";
    console.error(`demo: could not start: ${message}${hint}`);
    return 1;
  }
  printHeader(demo);

  if (options.check) {
    let ok = false;
    try {
      ok = await runCheck(demo);
    } finally {
      await demo.stop();
    }
    return ok ? 0 : 1;
  }

  printExamples(demo, await findPagedExample(demo));
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      console.log(`\n${signal}: stopping the demo…`);
      resolve();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
  // A second Ctrl+C while draining means "now": do not make the operator wait for the grace period.
  process.once("SIGINT", () => process.exit(130));
  await demo.stop();
  console.log("Stopped.");
  return 0;
}

process.exitCode = await main();
