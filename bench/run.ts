/**
 * `npm run bench`: the benchmark entry. Default: throughput scenarios (bare baseline, REST execute,
 * local `more`, MCP execute) with their targets. `--only read`: the reader's extraction bench
 * (bench/read.ts), on its own; `--only xbrl` and `--only legal`: XBRL extraction and legal.read's
 * splitting (bench/xbrl.ts, bench/legal.ts). `--soak`: the soak run and the scale figure of
 * issue 5 item 6. Servers run in one child process (server-child.ts), autocannon here.
 * Prints figures and a markdown table; always exits 0 when the run completes (figures, not a gate).
 */
import { tmpdir } from "node:os";
import { closeHttp } from "./http.ts";
import { runLegalBench } from "./legal.ts";
import { type BenchOptions, parseOptions } from "./options.ts";
import {
  consoleTable,
  environmentLine,
  fmt,
  LOAD_HEADER,
  loadRow,
  markdownTable,
  statusSummary,
  TARGET_HEADER,
  type Target,
  targetRow,
} from "./report.ts";
import { runReadBench } from "./read.ts";
import { runScale } from "./scale.ts";
import { startServerProcess } from "./server-process.ts";
import { runSoak } from "./soak.ts";
import { percentile } from "./stats.ts";
import { runThroughput } from "./throughput.ts";
import { runXbrlBench } from "./xbrl.ts";
import { answerCacheMemoryNote } from "./cache-memory.ts";

/** Two scenarios' per-slice figures, paired in the order the slices ran. */
function slicePairs(a: number[] | undefined, b: number[] | undefined): [number, number][] {
  const second = b ?? [];
  return (a ?? []).slice(0, second.length).map((x, i): [number, number] => [x, second[i]!]);
}

function median(values: number[]): number {
  return percentile(Float64Array.from(values).sort(), 50);
}

async function throughputMode(options: BenchOptions): Promise<void> {
  const server = await startServerProcess({ cpuProfDir: options.cpuProfDir, dataParent: options.dataParent });
  try {
    console.log(
      environmentLine(
        server.storeKind,
        `${options.connections} connections, ${options.duration} s per scenario after ${options.warmup} s warm-up`,
      ),
    );
    console.log("Servers in one child process (pid " + server.pid + "), autocannon in this process.");
    console.log(`Store data under ${options.dataParent ?? tmpdir()} (--data-dir to choose the file system).`);
    const { results, notes } = await runThroughput(options, server);
    const byName = new Map(results.map((r) => [r.name, r]));
    const bare = byName.get("bare");
    const execute = byName.get("execute");
    const mcp = byName.get("mcp-execute");
    const bareAtRate = results.find((r) => r.name.startsWith("bare@"));
    const executeAtRate = results.find((r) => r.name.startsWith("execute@"));
    const targets: Target[] = [];
    if (bare && execute) {
      const ratio = execute.rps / bare.rps;
      targets.push({
        label: "execute / bare throughput",
        measured: fmt.ratio(ratio),
        goal: "≥ 0.60×",
        pass: ratio >= 0.6,
      });
      const ratios = slicePairs(bare.sliceRps, execute.sliceRps).map(([b, e]) => e / b);
      if (ratios.length > 1) {
        // Not a target: how much the ratio moves from one pair of slices to the next on this host.
        notes.push(
          `execute / bare, slice pair by slice pair: ${ratios.map(fmt.ratio).join(", ")} ` +
            `(median ${fmt.ratio(median(ratios))})`,
        );
      }
    }
    if (bareAtRate && executeAtRate) {
      // The latency target: what the gateway adds to a typical request at the same offered load.
      // (The added-p99 targets are retired: on any host the bare route's own p99 moves by 20-50 ms
      // at the same load, so a difference of p99s measured the host's stalls, docs/performance.md.)
      const added = executeAtRate.p50 - bareAtRate.p50;
      targets.push({
        label: `added p50, equal load (${executeAtRate.name.split("@")[1]} req/s)`,
        measured: `${fmt.ms(added)} ms`,
        goal: "≤ 1 ms",
        pass: added <= 1,
      });
      const pairs = slicePairs(bareAtRate.sliceP50s, executeAtRate.sliceP50s);
      if (pairs.length > 0) {
        notes.push(
          `equal load, slice by slice (bare p50 → execute p50, ms): ${pairs
            .map(([b, e]) => `${fmt.ms(b)} → ${fmt.ms(e)}`)
            .join("; ")}; added p50 per pair: median ${fmt.ms(median(pairs.map(([b, e]) => e - b)))} ms`,
        );
      }
      // Not a target: the p99s, for the record.
      notes.push(
        `equal load p99 (not a target): bare ${fmt.ms(bareAtRate.p99)} ms, execute ${fmt.ms(executeAtRate.p99)} ms`,
      );
    }
    const cached = byName.get("execute-cached");
    if (bare && cached) {
      // Not a target: what an answer from Quarry's answer cache costs the gateway, against the bare route.
      const ratios = slicePairs(bare.sliceRps, cached.sliceRps).map(([b, c]) => c / b);
      notes.push(
        `execute-cached / bare throughput (not a target): ${fmt.ratio(cached.rps / bare.rps)}` +
          (ratios.length > 1 ? `; slice by slice ${ratios.map(fmt.ratio).join(", ")}` : ""),
      );
    }
    notes.push(answerCacheMemoryNote());
    if (execute) {
      const ratio = mcp ? mcp.rps / execute.rps : Number.NaN;
      targets.push({
        label: "MCP / REST execute throughput",
        measured: fmt.ratio(ratio),
        goal: "≥ 0.80×",
        pass: mcp ? ratio >= 0.8 : null,
      });
      const ratios = slicePairs(execute.sliceRps, mcp?.sliceRps).map(([e, m]) => m / e);
      if (ratios.length > 1) {
        notes.push(
          `MCP / REST, slice pair by slice pair: ${ratios.map(fmt.ratio).join(", ")} (median ${fmt.ratio(median(ratios))})`,
        );
      }
    }

    console.log("\nResults");
    console.log(consoleTable(LOAD_HEADER, results.map(loadRow)));
    for (const r of results) {
      const statuses = statusSummary(r);
      if (statuses) console.log(`  ${r.name}: non-2xx statuses ${statuses}`);
    }
    console.log("\nTargets");
    console.log(consoleTable(TARGET_HEADER, targets.map(targetRow)));
    if (notes.length > 0) console.log("\nNotes\n" + notes.map((n) => `  - ${n}`).join("\n"));
    console.log("\nMarkdown\n");
    console.log(
      `${environmentLine(server.storeKind, `${options.connections} connections, ${options.duration} s per scenario`)}. ` +
        "Replay upstream, bare route and Quarry in one process, autocannon in another; " +
        "p50/p99 exact over every response of the measured run.\n",
    );
    console.log(markdownTable(LOAD_HEADER, results.map(loadRow)));
    console.log();
    console.log(markdownTable(TARGET_HEADER, targets.map(targetRow)));
  } finally {
    await server.stop();
  }
}

async function soakMode(options: BenchOptions): Promise<void> {
  const soak = await runSoak(options);
  const scale = options.scaleSessions > 0 ? await runScale(options) : null;
  console.log("\nMarkdown\n");
  console.log(`${environmentLine(soak.storeKind, `${options.connections} connections`)}\n`);
  console.log(soak.markdown);
  if (scale) {
    console.log();
    console.log(scale.markdown);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  // `--only xbrl`: companies.financials' extraction and event-loop figures (bench/xbrl.ts), in this process.
  if (options.only?.delete("xbrl")) {
    await runXbrlBench(options);
    if (options.only.size === 0) return;
  }
  // `--only legal`: legal.read's splitting, on this thread and through its worker pool (bench/legal.ts).
  if (options.only?.delete("legal")) {
    await runLegalBench();
    if (options.only.size === 0) return;
  }
  if (options.soak) await soakMode(options);
  else {
    // `read` is the reader's extraction bench (bench/read.ts): no server; the other scenarios run as before.
    if (options.only?.has("read")) await runReadBench();
    const others = options.only === undefined ? undefined : [...options.only].filter((name) => name !== "read");
    if (others === undefined || others.length > 0) await throughputMode({ ...options, only: others === undefined ? undefined : new Set(others) });
  }
  await closeHttp();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error("bench failed:", err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
