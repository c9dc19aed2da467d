/**
 * `--soak` (issue 5 item 6): a bounded steady load across the four reference capabilities with
 * their follow-ups, each autocannon connection looping over one sequence (execute → follow-ups,
 * ids carried in the connection's context). Reports throughput, p50/p99, the error rate (non-2xx
 * other than 429, plus connection errors) per operation, and the server process's RSS sampled
 * during the run with its least-squares trend in MB/min.
 */
import type autocannon from "autocannon";
import { bearer, expectOk, pick, postJson } from "./http.ts";
import { type LoadResult, runLoad } from "./load.ts";
import type { BenchOptions } from "./options.ts";
import {
  consoleTable,
  environmentLine,
  LOAD_HEADER,
  loadRow,
  markdownTable,
  TARGET_HEADER,
  type Target,
  targetRow,
} from "./report.ts";
import { startServerProcess } from "./server-process.ts";
import { slope } from "./stats.ts";

/**
 * "Flat": the least-squares line of RSS rises less than this share of the starting RSS over the
 * run (the GC sawtooth alone swings RSS by tens of MB at this rate, so a fixed MB/min bound would
 * judge noise on short runs), and the JS heap retained after a full GC grows < 1 MB/min.
 */
const FLAT_RSS_SHARE = 0.05;
const FLAT_HEAP_MB_PER_MIN = 1;

type Ctx = Record<string, string | undefined>;

interface Op {
  name: string;
  path: string;
  body: (ctx: Ctx) => unknown;
  /** Context keys to fill from an execute answer: search id and first record id. */
  saves?: string;
}

const EXECUTE = (id: string) => `/v1/capabilities/${id}/execute`;

/** The loop each connection runs: every reference capability, then its follow-ups. */
const OPS: Op[] = [
  {
    name: "academic.execute",
    path: EXECUTE("academic.search"),
    body: () => ({ query: "state of open access" }),
    saves: "academic",
  },
  {
    name: "academic.details",
    path: "/v1/follow-up",
    body: (c) => ({ record_id: c.academicRecord, action: "details" }),
  },
  { name: "academic.more", path: "/v1/follow-up", body: (c) => ({ search_id: c.academic, action: "more" }) },
  {
    name: "music.execute",
    path: EXECUTE("music.search"),
    body: () => ({ query: "Soliloquy" }),
    saves: "music",
  },
  { name: "music.more", path: "/v1/follow-up", body: (c) => ({ search_id: c.music, action: "more" }) },
  {
    name: "recipes.execute",
    path: EXECUTE("recipes.search"),
    body: () => ({ category: "Seafood", num: 5 }),
    saves: "recipes",
  },
  { name: "recipes.more", path: "/v1/follow-up", body: (c) => ({ search_id: c.recipes, action: "more" }) },
  // Seafood meals are partial (details would need lookup.php, recorded for one meal only): the
  // stored-details path runs on a full meal from search.php instead.
  {
    name: "recipes.execute-query",
    path: EXECUTE("recipes.search"),
    body: () => ({ query: "Salmon Prawn Risotto" }),
    saves: "meal",
  },
  {
    name: "recipes.details",
    path: "/v1/follow-up",
    body: (c) => ({ record_id: c.mealRecord, action: "details" }),
  },
  {
    name: "markets.execute",
    path: EXECUTE("markets.quote"),
    body: () => ({ symbol: "GOOGL:NASDAQ" }),
    saves: "markets",
  },
  {
    name: "markets.details",
    path: "/v1/follow-up",
    body: (c) => ({ record_id: c.marketsRecord, action: "details" }),
  },
];

function saveIds(ctx: Ctx, prefix: string, body: string): void {
  try {
    const parsed: unknown = JSON.parse(body);
    const searchId = pick(parsed, "search_id");
    const recordId = pick(parsed, "results", 0, "record_id");
    ctx[prefix] = typeof searchId === "string" ? searchId : undefined;
    ctx[`${prefix}Record`] = typeof recordId === "string" ? recordId : undefined;
  } catch {
    ctx[prefix] = undefined;
    ctx[`${prefix}Record`] = undefined;
  }
}

export interface SoakReport {
  storeKind: string;
  load: LoadResult;
  markdown: string;
}

export async function runSoak(options: BenchOptions): Promise<SoakReport> {
  const server = await startServerProcess({ cpuProfDir: options.cpuProfDir, dataParent: options.dataParent });
  try {
    const auth = bearer(server.key);
    console.log(
      environmentLine(server.storeKind, `${options.connections} connections, soak ${options.soakSeconds} s`),
    );

    // Sanity: walk the sequence once by hand; every step must answer 200.
    const ctx: Ctx = {};
    for (const op of OPS) {
      const res = await postJson(server.gatewayUrl, op.path, op.body(ctx), auth);
      expectOk(`soak step ${op.name}`, res);
      if (op.saves) saveIds(ctx, op.saves, JSON.stringify(res.body));
    }

    const perOp = new Map<string, Record<string, number>>(OPS.map((op) => [op.name, {}]));
    let measuring = false;
    const requests: autocannon.Request[] = OPS.map((op) => ({
      method: "POST",
      path: op.path,
      setupRequest: (req, context) => ({ ...req, body: JSON.stringify(op.body(context as Ctx)) }),
      onResponse: (status, body, context) => {
        if (op.saves) saveIds(context as Ctx, op.saves, body);
        if (!measuring) return;
        const counts = perOp.get(op.name) ?? {};
        counts[status] = (counts[status] ?? 0) + 1;
        perOp.set(op.name, counts);
      },
    }));

    // Memory. During the run: RSS as found every few seconds, with no forced GC (forcing one
    // shrinks V8's young generation and slows the very load being measured). Between the warm-ups
    // and after the run, with no load in flight: RSS and JS heap after a full GC, i.e. what the
    // process retains; a leak shows there without the collector's sawtooth.
    const everyMs = Math.min(5000, Math.max(1000, Math.floor((options.soakSeconds * 1000) / 20)));
    const MB = 1024 * 1024;
    const memory: { min: number; rss: number; heap: number }[] = [];
    const sample = async (ms: number) => {
      const m = await server.memory(false);
      memory.push({ min: ms / 60_000, rss: m.rss / MB, heap: m.heapUsed / MB });
    };
    // Warm-up in two parts: a long one so V8 sizes its heap for this load, then (idle) the retained
    // memory after a full GC, then a short one so the young generation the GC shrank grows back
    // before the measured run.
    const settle = Math.max(5, Math.min(30, options.soakSeconds / 6));
    const warmup = Math.min(5, options.soakSeconds / 4);
    console.log(
      `  soak: ${settle} s + ${warmup} s warm-up, then ${options.soakSeconds} s measured, RSS every ${everyMs / 1000} s ...`,
    );
    const loadSpec = {
      url: server.gatewayUrl,
      requests,
      headers: auth,
      connections: options.connections,
      cpuOf: server.pid,
    };
    await runLoad({ ...loadSpec, name: "soak warm-up", duration: settle, warmup: 0 });
    const retainedStart = await server.memory(true);
    const samples: Promise<void>[] = [];
    const load = await runLoad({
      ...loadSpec,
      name: "soak (mixed)",
      duration: options.soakSeconds,
      warmup,
      onMeasureStart: () => {
        measuring = true;
        samples.push(sample(0));
      },
      onTick: { everyMs, run: (ms) => samples.push(sample(ms)) },
    });
    await Promise.all(samples);
    await sample(load.seconds * 1000);
    memory.sort((a, b) => a.min - b.min);
    const retainedEnd = await server.memory(true);

    const failures = Object.entries(load.statuses)
      .filter(([code]) => !code.startsWith("2") && code !== "429")
      .reduce((n, [, c]) => n + c, 0);
    const errorRate = (failures + load.errors) / Math.max(1, load.responses + load.errors);
    const rate429 = load.statuses["429"] ?? 0;
    const first = memory[0];
    const last = memory.at(-1);
    const rawTrend = slope(memory.map((m) => ({ x: m.min, y: m.rss })));
    const heapTrend = slope(memory.map((m) => ({ x: m.min, y: m.heap })));
    const minutes = load.seconds / 60;
    const retainedFrom = retainedStart.rss / MB;
    const retainedTo = retainedEnd.rss / MB;
    const heapFrom = retainedStart.heapUsed / MB;
    const heapTo = retainedEnd.heapUsed / MB;
    const heapRate = (heapTo - heapFrom) / minutes;
    const startRss = first?.rss ?? Number.NaN;
    const rssRise = rawTrend * minutes;
    const signed = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(2)}`;
    const targets: Target[] = [
      {
        label: "errors (non-2xx except 429, plus connection errors)",
        measured: `${failures + load.errors} (${(errorRate * 100).toFixed(3)}%)`,
        goal: "0",
        pass: failures + load.errors === 0,
      },
      {
        label: "RSS during the run: start → end, least-squares slope",
        measured: `${startRss.toFixed(1)} → ${last?.rss.toFixed(1)} MB, ${signed(rawTrend)} MB/min`,
        goal: `flat (fitted rise < ${FLAT_RSS_SHARE * 100}% of start)`,
        pass: Number.isFinite(rssRise) && rssRise < FLAT_RSS_SHARE * startRss,
      },
      {
        label: "JS heap retained after full GC, before → after the run",
        measured: `${heapFrom.toFixed(1)} → ${heapTo.toFixed(1)} MB, ${signed(heapRate)} MB/min`,
        goal: `flat (< ${FLAT_HEAP_MB_PER_MIN} MB/min)`,
        pass: heapRate < FLAT_HEAP_MB_PER_MIN,
      },
    ];

    const opRows = OPS.map((op) => {
      const counts = perOp.get(op.name) ?? {};
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const bad = Object.entries(counts).filter(([code]) => !code.startsWith("2"));
      return [op.name, String(total), bad.length === 0 ? "-" : bad.map(([c, n]) => `${c}×${n}`).join(", ")];
    });
    const memoryRows = memory.map((m) => [
      `${(m.min * 60).toFixed(0)} s`,
      m.rss.toFixed(1),
      m.heap.toFixed(1),
    ]);

    console.log("\nSoak");
    console.log(consoleTable(LOAD_HEADER, [loadRow(load)]));
    console.log(`  429s: ${rate429} (excluded from errors)`);
    console.log("\n  Per operation");
    console.log(consoleTable(["operation", "responses", "non-2xx"], opRows));
    console.log("\n  Memory of the server process (MB)");
    console.log(consoleTable(["t", "RSS", "JS heap used"], memoryRows));
    console.log(`  JS heap used trend during the run: ${signed(heapTrend)} MB/min (GC sawtooth included)`);
    console.log(
      `  RSS after full GC (idle): ${retainedFrom.toFixed(1)} MB before the run, ${retainedTo.toFixed(1)} MB after it`,
    );
    console.log("\nSoak targets");
    console.log(consoleTable(TARGET_HEADER, targets.map(targetRow)));

    const markdown = [
      `Soak: ${options.soakSeconds} s, ${options.connections} connections, mixed sequence of ${OPS.length} calls ` +
        `(4 reference capabilities + follow-ups); RSS sampled every ${everyMs / 1000} s.`,
      "",
      markdownTable(LOAD_HEADER, [loadRow(load)]),
      "",
      markdownTable(TARGET_HEADER, targets.map(targetRow)),
    ].join("\n");
    return { storeKind: server.storeKind, load, markdown };
  } finally {
    await server.stop();
  }
}
