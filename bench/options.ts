/**
 * Command-line flags of `npm run bench`: durations, connections, and the soak/scale mode.
 */
import { parseArgs } from "node:util";

export interface BenchOptions {
  /** Seconds of measured load per throughput scenario. */
  duration: number;
  /** Seconds of unmeasured load before each scenario. */
  warmup: number;
  connections: number;
  /** Run the soak and scale figures (issue 5 item 6) instead of the throughput scenarios. */
  soak: boolean;
  soakSeconds: number;
  /** Sessions written into the store for the scale figure (0 skips it). */
  scaleSessions: number;
  /** Sequential execute calls measured on the empty and on the filled store. */
  scaleRequests: number;
  /** Run only these throughput scenarios (`--only execute,mcp-execute`); all when undefined. */
  only: Set<string> | undefined;
  /** Write a V8 CPU profile of the server process into this directory (`--cpu-prof DIR`). */
  cpuProfDir: string | undefined;
  /** Where the server's temporary data directory is made (`--data-dir DIR`; default the OS temp dir). */
  dataParent: string | undefined;
}

function positive(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      soak: { type: "boolean", default: false },
      "soak-seconds": { type: "string" },
      "scale-sessions": { type: "string" },
      "scale-requests": { type: "string" },
      "cpu-prof": { type: "string" },
      "data-dir": { type: "string" },
      only: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      [
        "npm run bench -- [--duration S] [--warmup S] [--connections N]",
        "  --only bare,execute,equal-load,more-local,mcp-execute runs a subset",
        "  --only read runs the reader's extraction bench (HTML → Markdown over the page corpus, linkedom vs jsdom)",
        "  --only xbrl runs companies.financials' XBRL extraction and event-loop figures (bench/xbrl.ts)",
        "  --only legal runs legal.read's splitting figures: on the calling thread, and the event loop while its worker pool splits (bench/legal.ts)",
        "  --cpu-prof DIR writes a CPU profile of the server process",
        "  --data-dir DIR puts the store's temporary directory in DIR (e.g. /dev/shm to take the disk out)",
        "npm run bench -- --soak [--soak-seconds N] [--scale-sessions N] [--scale-requests N] [--connections N]",
      ].join("\n"),
    );
    process.exit(0);
  }
  const duration = positive("duration", values.duration, 10);
  return {
    duration,
    warmup: positive("warmup", values.warmup, Math.min(2, duration), 0),
    connections: Math.floor(positive("connections", values.connections, 50)),
    soak: values.soak ?? false,
    soakSeconds: positive("soak-seconds", values["soak-seconds"], 180, 5),
    scaleSessions: Math.floor(positive("scale-sessions", values["scale-sessions"], 1_000_000, 0)),
    scaleRequests: Math.floor(positive("scale-requests", values["scale-requests"], 5000, 10)),
    cpuProfDir: values["cpu-prof"],
    dataParent: values["data-dir"],
    only: values.only === undefined ? undefined : new Set(values.only.split(",").map((s) => s.trim())),
  };
}
