#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's own test runner (TypeScript through tsx).
// Extra arguments are passed on (e.g. `npm test -- --test-name-pattern=credits` or a file list).
//
// Two phases. Most files run two at a time: a file's time is mostly starting its process and waiting
// on sockets, so on the 2-core CI machine that takes minutes off the suite. Files that time processes
// they start (the CLI, `npm start`, crashes, store and Redis outages), the fuzzer (long, CPU-bound) and
// any file whose text holds the marker `test-alone` then run one at a time, so contention never decides
// whether a "within N seconds" assertion holds.
import { spawnSync } from "node:child_process";
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

function run(list, concurrency) {
  if (list.length === 0) return 0;
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-reporter=spec", "--test-timeout=120000", `--test-concurrency=${concurrency}`, ...flags, ...list],
    { stdio: "inherit", env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" } },
  );
  return result.status ?? 1;
}

const together = targets.filter((f) => !alone(f));
const apart = targets.filter(alone);
const first = run(together, 2);
const second = run(apart, 1);
process.exit(first !== 0 ? first : second);
