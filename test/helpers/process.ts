/**
 * Quarry as a real child process (`node --import tsx src/server.ts`) for the crash and shutdown
 * tests: start it with a given environment, wait for "Quarry listening on <url>", pick up the
 * first-start key, kill it with any signal and wait for its exit. Every child is tracked and
 * SIGKILLed when the test process exits, so a failing test never leaves a server running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface QuarryProcess {
  child: ChildProcess;
  pid: number;
  /** Base URL from the "Quarry listening on" line. */
  url: string;
  /** Key printed on first start with an empty store, else null. */
  key: string | null;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves once the process has exited. */
  exited: Promise<Exit>;
  /** Send a signal and wait for the exit. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
}

export interface SpawnOptions {
  /** Environment added to the test's own (DATABASE_URL and REDIS_URL removed unless given here). */
  env: Record<string, string | undefined>;
  /** Command run in front of node (e.g. `["unshare", "-m", "sh", "-c", ...]` wrappers build their own). */
  argv?: string[];
  /** How long to wait for the listening line (default 20 s). */
  readyTimeoutMs?: number;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LISTENING = /Quarry listening on (http:\/\/\S+)/;
const KEY = /shown only this once\): (qk_live_[0-9A-Za-z]+)/;

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * The environment a Quarry child gets: the test's own, without store/limiter URLs, plus `extra`.
 * Quarry's answer cache is off unless `extra` turns it on, as in the harness: these tests count the
 * provider calls and charges of calls they repeat.
 */
export function childEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: "silent",
    HOST: "127.0.0.1",
    PORT: "0",
    ANSWER_CACHE: "off",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return { ...env, ...extra };
}

/** The node command line that runs the server (for wrappers such as `unshare`). */
export function serverArgv(): string[] {
  return [process.execPath, "--import", "tsx", "src/server.ts"];
}

/** Spawn a child and collect its output; `exited` resolves on exit. No waiting for readiness. */
export function spawnQuarry(options: SpawnOptions): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<Exit>;
} {
  const argv = options.argv ?? serverArgv();
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: ROOT,
    env: childEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, output: () => out, exited };
}

/** Start Quarry and wait until it listens (and, on first start, has printed its key). */
export async function startQuarryProcess(options: SpawnOptions): Promise<QuarryProcess> {
  const { child, output, exited } = spawnQuarry(options);
  const timeoutMs = options.readyTimeoutMs ?? 20_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`Quarry did not start within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const check = () => {
      const text = output();
      const m = LISTENING.exec(text);
      // The first-start block is one write; wait for its key line when it is printed.
      if (m && (!text.includes("First start") || KEY.test(text))) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`Quarry exited (${code ?? signal}) before listening:\n${output()}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    url,
    key: KEY.exec(output())?.[1] ?? null,
    output,
    exited,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
