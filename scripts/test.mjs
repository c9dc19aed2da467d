#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's own test runner (TypeScript through tsx).
// Extra arguments are passed on (e.g. `npm test -- --test-name-pattern=credits` or a file list).
//
// Two phases. Most files run two at a time: a file's time is mostly starting its process and waiting
// on sockets, so on the 2-core CI machine that takes minutes off the suite. Files that time processes
// they start (the CLI, `npm start`, crashes, store and Redis outages), the fuzzer (long, CPU-bound) and
// any file whose text holds the marker `test-alone` then run one at a time, so contention never decides
// whether a "within N seconds" assertion holds.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const ALONE = /helpers\/process\.ts|node:child_process|test-alone/;
const alone = (file) => /fuzz\.test\.ts$/.test(file) || ALONE.test(readFileSync(file, "utf8"));

const args = process.argv.slice(2);
const files = args.filter((a) => a.endsWith(".ts"));
const flags = args.filter((a) => !a.endsWith(".ts"));
const targets = files.length > 0 ? files : [...find("src"), ...find("test")].sort();

/**
 * Runs one phase, its output passed through as it comes. Resolves to its exit status and, when it
 * failed, the reporter's closing "failing tests" section (reprinted at the very end, so a failure of
 * the first phase is not lost above the second phase's output in a log that keeps only its tail).
 */
function run(list, concurrency) {
  if (list.length === 0) return Promise.resolve({ status: 0, failures: "" });
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--test", "--test-reporter=spec", "--test-timeout=120000", `--test-concurrency=${concurrency}`, ...flags, ...list],
      { stdio: ["inherit", "pipe", "inherit"], env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" } },
    );
    let tail = "";
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      // The failures section comes last; keep the end of the output only (bounded).
      tail = (tail + chunk.toString("utf8")).slice(-200_000);
    });
    child.on("close", (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      const at = tail.lastIndexOf("failing tests:");
      resolve({ status, failures: status !== 0 && at >= 0 ? tail.slice(at) : "" });
    });
  });
}

const together = targets.filter((f) => !alone(f));
const apart = targets.filter(alone);
const first = await run(together, 2);
const second = await run(apart, 1);
if (first.failures !== "") process.stdout.write(`\n===== first phase (files two at a time): ${first.failures}`);
if (second.failures !== "") process.stdout.write(`\n===== second phase (files one at a time): ${second.failures}`);
process.exit(first.status !== 0 ? first.status : second.status);
