import assert from "node:assert/strict";
import { test } from "node:test";
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";

test("a password hash verifies its password only, and never holds it", async () => {
  const hash = await hashPassword("correct horse battery");
  assert.match(hash, /^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
  assert.doesNotMatch(hash, /horse/);
  assert.equal(await verifyPassword("correct horse battery", hash), true);
  assert.equal(await verifyPassword("correct horse batterY", hash), false);
  assert.notEqual(await hashPassword("correct horse battery"), hash, "a salt of its own each time");
});

test("passwords are compared after NFKC normalization (one look, one password)", async () => {
  const hash = await hashPassword("caf\u00e9 au lait!");
  assert.equal(await verifyPassword("cafe\u0301 au lait!", hash), true);
});

test("a hash this code did not write, or with absurd parameters, verifies nothing", async () => {
  const hash = await hashPassword("correct horse battery");
  const parts = hash.split("$");
  for (const bad of [
    "",
    "bcrypt$2b$10$abc",
    parts.slice(0, 5).join("$"),
    ["scrypt", 2 ** 30, 8, 1, parts[4], parts[5]].join("$"),
    ["scrypt", "x", 8, 1, parts[4], parts[5]].join("$"),
    ["scrypt", 32768, 8, 3, parts[4], "c2hvcnQ"].join("$"),
  ]) {
    assert.equal(await verifyPassword("correct horse battery", bad), false, bad);
  }
});

test("password length: at least 10 and at most 256 characters (code points)", async () => {
  assert.match(passwordProblem("123456789") ?? "", /at least 10/);
  assert.equal(passwordProblem("1234567890"), null);
  assert.equal(passwordProblem("😀".repeat(10)), null);
  assert.match(passwordProblem("a".repeat(257)) ?? "", /at most 256/);
  assert.equal(await verifyPassword("anything at all", await decoyHash()), false);
});
