// `.env` is read at start, under what the environment already sets.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadDotEnv } from "./env-file.ts";

test(".env fills what the environment does not set; set variables win; no file, nothing", () => {
  const dir = mkdtempSync(join(tmpdir(), "quarry-env-"));
  const path = join(dir, ".env");
  writeFileSync(path, "QUARRY_TEST_FROM_FILE=file\nQUARRY_TEST_BOTH=file\n# a comment\n");
  process.env.QUARRY_TEST_BOTH = "environment";
  assert.equal(loadDotEnv(path), true);
  assert.equal(process.env.QUARRY_TEST_FROM_FILE, "file");
  assert.equal(process.env.QUARRY_TEST_BOTH, "environment");
  assert.equal(loadDotEnv(join(dir, "missing.env")), false);
  delete process.env.QUARRY_TEST_FROM_FILE;
  delete process.env.QUARRY_TEST_BOTH;
});
