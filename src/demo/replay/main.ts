/**
 * Standalone replay upstream: `tsx src/demo/replay/main.ts [--port N] [--host H] [--latency MS]`.
 * Prints the URL and the environment to point Quarry at it, then serves until interrupted.
 */
import { replayEnvironment } from "./replay-env.ts";
import { startReplay } from "./replay-server.ts";

function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i !== -1) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

function intFlag(args: readonly string[], name: string): number | undefined {
  const raw = flag(args, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

const args = process.argv.slice(2);
const replay = await startReplay({
  port: intFlag(args, "--port"),
  host: flag(args, "--host"),
  latencyMs: intFlag(args, "--latency"),
});

const lines = [
  `replay upstream listening on ${replay.url} (${replay.index.entries.length} recordings, prefixes: ${replay.index.prefixes.join(", ")})`,
  "",
  "# environment for Quarry:",
  ...Object.entries(replayEnvironment(replay.url)).map(([k, v]) => `${k}=${v}`),
  "",
];
process.stdout.write(lines.join("\n"));

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void replay.close().then(() => process.exit(0));
  });
}
