/**
 * The throughput scenarios of issues 2 and 3, in one run against one server process: `bare`
 * (the baseline route), `execute` (recipes.search over REST, asking afresh each time: `Cache-Control:
 * no-cache`), `execute-cached` (the same execute answered from Quarry's answer cache), `more-local`
 * (follow-up `more` on local paging, rotating over a pool of sessions) and `mcp-execute` (the same
 * execute as an MCP tools/call, afresh: `_meta` quarry/fresh) when the MCP endpoint exists.
 */
import type autocannon from "autocannon";
import { bearer, expectOk, pick, postJson } from "./http.ts";
import { type LoadResult, type LoadSpec, runLoad, runLoads, sliceSeconds } from "./load.ts";
import { runOpenLoops } from "./open-loop.ts";
import type { BenchOptions } from "./options.ts";
import type { ServerProcess } from "./server-process.ts";

export const EXECUTE_PATH = "/v1/capabilities/recipes.search/execute";
export const EXECUTE_BODY = { query: "Salmon Prawn Risotto" };
const SEAFOOD = { category: "Seafood", num: 1 };
/** 29 Seafood meals at one a page: 28 `more` calls return a record before a session is exhausted. */
const PAGES_PER_SESSION = 28;
const MCP_ACCEPT = "application/json, text/event-stream";
/**
 * The equal-load pair runs in this many alternating slices per side (open-loop.ts, runOpenLoops),
 * so a stall of the host falls on both sides alike.
 */
const EQUAL_LOAD_ROUNDS = 4;
/** The saturated bare/execute pair, likewise (load.ts, runLoads): its ratio is the target figure. */
const PAIR_ROUNDS = 5;

/** Every execute reaches the provider (the replay), as before the answer cache: REST's header, MCP's `_meta`. */
const FRESH = { "cache-control": "no-cache" };

export const MCP_BODY = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "execute", arguments: { capability: "recipes.search", params: EXECUTE_BODY }, _meta: { "quarry/fresh": true } },
};

export interface ThroughputRun {
  results: LoadResult[];
  notes: string[];
}

function post(path: string, body: unknown): autocannon.Request {
  return { method: "POST", path, body: JSON.stringify(body) };
}

/** Create `count` recipes sessions, `parallel` at a time; returns their search ids. */
async function createSessions(server: ServerProcess, count: number, parallel = 16): Promise<string[]> {
  const ids: string[] = [];
  let made = 0;
  const worker = async () => {
    while (made < count) {
      made++;
      const res = await postJson(server.gatewayUrl, EXECUTE_PATH, SEAFOOD, bearer(server.key));
      expectOk("create a Seafood session", res);
      const id = pick(res.body, "search_id");
      if (typeof id !== "string") throw new Error("execute answered without a search_id");
      ids.push(id);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return ids;
}

type Common = Pick<LoadSpec, "connections" | "duration" | "warmup" | "cpuOf">;

export async function runThroughput(options: BenchOptions, server: ServerProcess): Promise<ThroughputRun> {
  const notes: string[] = [];
  const results: LoadResult[] = [];
  const common: Common = {
    connections: options.connections,
    duration: options.duration,
    warmup: options.warmup,
    cpuOf: server.pid,
  };
  const auth = bearer(server.key);

  // Sanity: each scenario answers what it should before it is measured.
  const bareProbe = await postJson(server.bareUrl, "/bare/recipes", EXECUTE_BODY);
  expectOk("bare route", bareProbe);
  if (!Array.isArray(pick(bareProbe.body, "meals"))) throw new Error("bare route answered without meals");
  const execProbe = await postJson(server.gatewayUrl, EXECUTE_PATH, EXECUTE_BODY, auth);
  expectOk("execute", execProbe);
  if (pick(execProbe.body, "result_count") !== 1)
    throw new Error("execute did not find the one recorded meal");

  const wanted = (name: string) => options.only === undefined || options.only.has(name);
  const bareSpec: LoadSpec = {
    name: "bare",
    url: server.bareUrl,
    requests: [post("/bare/recipes", EXECUTE_BODY)],
    ...common,
  };
  const executeSpec: LoadSpec = {
    name: "execute",
    url: server.gatewayUrl,
    requests: [post(EXECUTE_PATH, EXECUTE_BODY)],
    headers: { ...auth, ...FRESH },
    ...common,
  };
  // The same execute answered from Quarry's answer cache (recipes.search keeps answers a day).
  const cachedSpec: LoadSpec = {
    name: "execute-cached",
    url: server.gatewayUrl,
    requests: [post(EXECUTE_PATH, EXECUTE_BODY)],
    headers: auth,
    ...common,
  };
  // MCP's execute joins the saturated rotation when it runs with both, so that MCP/REST, like
  // execute/bare, compares slices taken in the same rounds rather than two moments of the host.
  const mcp = wanted("mcp-execute") ? await mcpExecuteSpec(server, common) : null;
  let mcpDone = false;
  if (wanted("bare") && wanted("execute")) {
    const specs = [bareSpec, executeSpec, ...(wanted("execute-cached") ? [cachedSpec] : []), ...(mcp?.spec ? [mcp.spec] : [])];
    const names = specs.map((spec) => spec.name);
    console.log(`  ${names.join(", ")}, saturated, in ${PAIR_ROUNDS} alternating slices ...`);
    results.push(...(await runLoads(specs, PAIR_ROUNDS)));
    mcpDone = mcp?.spec !== undefined;
    notes.push(
      `${names.join(", ")}: in ${PAIR_ROUNDS} rounds of ${sliceSeconds(common.duration, PAIR_ROUNDS)} s slices ` +
        `(${names.join(", ")}, ${names[0]}, …), responses and latencies pooled per scenario`,
    );
  } else if (wanted("bare")) {
    console.log("  bare ...");
    results.push(await runLoad(bareSpec));
  } else if (wanted("execute")) {
    console.log("  execute ...");
    results.push(await runLoad(executeSpec));
  }
  // Latency added per request, free of saturation queueing: bare and execute under the same
  // open-loop load (half of execute's saturation rate, so neither is saturated), 50 connections.
  const bare = results.find((r) => r.name === "bare");
  const execute = results.find((r) => r.name === "execute");
  if (wanted("equal-load") && !(bare && execute))
    notes.push("equal-load: skipped (it needs the bare and execute runs)");
  if (bare && execute && wanted("equal-load")) {
    const rate = Math.max(100, Math.round(execute.rps / 2 / 100) * 100);
    console.log(`  bare and execute at ${rate} req/s (open loop) ...`);
    const body = JSON.stringify(EXECUTE_BODY);
    results.push(
      ...(await runOpenLoops(
        [
          { name: `bare@${rate}`, url: server.bareUrl, path: "/bare/recipes", body, rate, ...common },
          {
            name: `execute@${rate}`,
            url: server.gatewayUrl,
            path: EXECUTE_PATH,
            body,
            headers: { ...auth, ...FRESH },
            rate,
            ...common,
          },
        ],
        EQUAL_LOAD_ROUNDS,
      )),
    );
    notes.push(
      `bare@${rate}, execute@${rate}: ${rate} req/s sent on a fixed schedule over ${common.connections} connections ` +
        "(latency from each request's scheduled time; half of execute's saturation rate), " +
        `in ${EQUAL_LOAD_ROUNDS} alternating slices of ${common.duration / EQUAL_LOAD_ROUNDS} s each, latencies pooled per side`,
    );
  }
  if (wanted("more-local")) {
    const executeRps = results.find((r) => r.name === "execute")?.rps ?? 2000;
    const run = await runMoreLocal(server, common, executeRps);
    results.push(run.result);
    notes.push(run.note);
  }
  if (mcp) {
    if (mcp.spec && !mcpDone) {
      console.log("  mcp-execute ...");
      results.push(await runLoad(mcp.spec));
    }
    notes.push(mcp.note);
  }
  return { results, notes };
}

/** Follow-up `more` on local paging, round-robin over a pool of Seafood sessions (1 meal a page). */
async function runMoreLocal(server: ServerProcess, common: Common, executeRps: number) {
  const auth = bearer(server.key);
  // Enough sessions that round-robin `more` calls never reach an exhausted one (estimated from
  // execute's rate; more runs about twice as fast, hence the margin), within bounds that keep set-up short.
  const expected = executeRps * 3 * (common.duration + common.warmup);
  const poolSize = Math.min(20_000, Math.max(200, Math.ceil(expected / PAGES_PER_SESSION)));
  console.log(`  more-local: creating ${poolSize} sessions ...`);
  const pool = await createSessions(server, poolSize);
  const moreProbe = await postJson(
    server.gatewayUrl,
    "/v1/follow-up",
    { search_id: pool[0], action: "more" },
    auth,
  );
  expectOk("more", moreProbe);
  if (pick(moreProbe.body, "results", "length") !== 1)
    throw new Error("local more did not answer one record");
  let turn = 1; // pool[0] had its first `more` above
  let sent = 1;
  const result = await runLoad({
    name: "more-local",
    url: server.gatewayUrl,
    requests: [
      {
        method: "POST",
        path: "/v1/follow-up",
        setupRequest: (req) => {
          sent++;
          const searchId = pool[turn++ % pool.length];
          return { ...req, body: JSON.stringify({ search_id: searchId, action: "more" }) };
        },
      },
    ],
    headers: auth,
    ...common,
  });
  const capacity = pool.length * PAGES_PER_SESSION;
  const exhausted = Math.max(0, sent - capacity);
  const note =
    `more-local: ${pool.length} sessions (${capacity} pages) for ${sent} calls incl. warm-up` +
    (exhausted > 0
      ? `; about ${exhausted} calls hit exhausted sessions (empty page, still 200)`
      : "; none exhausted");
  return { result, note };
}

/** The same execute as an MCP tools/call on the stateless endpoint, when it exists and answers. */
async function mcpExecuteSpec(
  server: ServerProcess,
  common: Common,
): Promise<{ spec?: LoadSpec; note: string }> {
  if (!server.mcp) return { note: "mcp-execute: skipped (src/mcp/mcp-routes.ts not present)" };
  const headers = { ...bearer(server.key), accept: MCP_ACCEPT };
  const probe = await postJson(server.gatewayUrl, "/mcp", MCP_BODY, headers);
  const isError = pick(probe.body, "result", "isError");
  const count = pick(probe.body, "result", "structuredContent", "result_count");
  if (probe.status !== 200 || isError === true || count !== 1) {
    return {
      note: `mcp-execute: skipped, a tools/call answered ${probe.status}: ${JSON.stringify(probe.body).slice(0, 300)}`,
    };
  }
  return {
    spec: {
      name: "mcp-execute",
      url: server.gatewayUrl,
      requests: [post("/mcp", MCP_BODY)],
      headers,
      ...common,
    },
    note: "mcp-execute: one stateless tools/call per request, no initialize (the stateless endpoint accepts it, as the SDK's stateless transport does)",
  };
}
