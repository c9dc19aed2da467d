#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's own test runner (TypeScript through tsx).
// Extra arguments are passed on (e.g. `npm test -- --test-name-pattern=credits` or a file list).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
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

const args = process.argv.slice(2);
const files = args.filter((a) => a.endsWith(".ts"));
const flags = args.filter((a) => !a.endsWith(".ts"));
const targets = files.length > 0 ? files : [...find("src"), ...find("test")].sort();
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", "--test-timeout=120000", ...flags, ...targets],
  { stdio: "inherit", env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" } },
);
process.exit(result.status ?? 1);
