/**
 * The operator CLI end to end: runs `src/cli/main.ts` as a child process on a temporary embedded
 * store, through a full account/key/plan flow, and checks that a key it creates (and revokes)
 * works (and stops working) against a real Quarry started in-process on the same store.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { addMonths } from "../src/accounts/periods.ts";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { replayEnvironment } from "../src/demo/replay/replay-env.ts";
import { runCli } from "../src/cli/run.ts";
import { type RunningQuarry, startQuarry } from "../src/runtime.ts";
import { Visitor } from "./helpers/people.ts";

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const dataDir = mkdtempSync(join(tmpdir(), "quarry-cli-"));

/** The CLI's environment: this test's store only, whatever the developer's shell has set. */
function cliEnv(dir = dataDir): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir };
  for (const name of [
    "DATABASE_URL",
    "REDIS_URL",
    "QUARRY_PLANS",
    "QUARRY_PLANS_FILE",
    "QUARRY_DEFAULT_PLAN",
  ]) {
    delete env[name];
  }
  return env;
}

function cli(...args: string[]): Promise<CliResult> {
  return cliIn(dataDir, ...args);
}

/** The CLI with DATA_DIR set to `dir`. */
function cliIn(dir: string, ...args: string[]): Promise<CliResult> {
  return cliRun(dir, undefined, args);
}

/** The CLI with `input` on its stdin (a password). */
function cliWithInput(input: string, ...args: string[]): Promise<CliResult> {
  return cliRun(dataDir, input, args);
}

function cliRun(dir: string, input: string | undefined, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the in-process server must keep answering while the CLI runs.
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], { env: cliEnv(dir) });
    child.stdin.end(input ?? "");
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(...args: string[]): Promise<string> {
  const res = await cli(...args);
  assert.equal(res.code, 0, `quarry ${args.join(" ")} failed: ${res.stderr}`);
  return res.stdout;
}

async function okJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, "--json")) as T;
}

/** A failure is exit code 1 with exactly one line on stderr that says what was wrong. */
async function fails(pattern: RegExp, ...args: string[]): Promise<void> {
  const res = await cli(...args);
  assert.equal(res.code, 1, `quarry ${args.join(" ")} should fail; stdout: ${res.stdout}`);
  const lines = res.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line expected on stderr, got: ${res.stderr}`);
  assert.match(lines[0]!, /^quarry: error: /);
  assert.match(lines[0]!, pattern);
}

/** The CLI in this process (src/cli/run.ts), on this test's store: same commands, no process start-up. */
async function cliHere(...args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const env = cliEnv();
  const code = await runCli(args, { line: (t) => out.push(`${t}\n`), notice: (t) => err.push(`${t}\n`) }, env);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

async function okHere(...args: string[]): Promise<string> {
  const res = await cliHere(...args);
  assert.equal(res.code, 0, `quarry ${args.join(" ")} failed: ${res.stderr}`);
  return res.stdout;
}

async function okJsonHere<T>(...args: string[]): Promise<T> {
  return JSON.parse(await okHere(...args, "--json")) as T;
}

async function failsHere(pattern: RegExp, ...args: string[]): Promise<void> {
  const res = await cliHere(...args);
  assert.equal(res.code, 1, `quarry ${args.join(" ")} should fail; stdout: ${res.stdout}`);
  const lines = res.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line expected on stderr, got: ${res.stderr}`);
  assert.match(lines[0]!, /^quarry: error: /);
  assert.match(lines[0]!, pattern);
}

interface AccountJson {
  id: string;
  name: string;
  plan: { id: string; name: string };
  status: string;
  cadence: string | null;
  credits: { used: number; cap: number; period_end: string | null; reserved: number };
  period_anchor: string | null;
  sharpen_tier: string;
  sharpen_stage: string;
  sharpen_stage_source: string;
  keys: { total: number; active: number };
}

interface KeyJson {
  id: string;
  hint: string;
  name: string;
  credit_limit: number | null;
  credits_used: number | null;
  credits_reserved: number | null;
  created_at: string;
  revoked_at: string | null;
}

let replay: ReplayServer;
let quarry: RunningQuarry;

before(async () => {
  // Create the store through the CLI first, so startQuarry sees a non-empty store and makes no first key.
  await ok("accounts", "create", "--name", "bootstrap");
  replay = await startReplay();
  quarry = await startQuarry({
    ...replayEnvironment(replay.url),
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
  });
  assert.equal(quarry.firstKey, null);
});

after(async () => {
  await quarry?.stop();
  await replay?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function api(path: string, key: string, body?: unknown): Promise<Response> {
  return fetch(`${quarry.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("quarry CLI", () => {
  let accountId = "";
  let key = "";
  let keyId = "";

  test("--help lists every command and exits 0", async () => {
    const res = await cli("--help");
    assert.equal(res.code, 0);
    for (const command of [
      "accounts create",
      "accounts list",
      "accounts show",
      "keys create",
      "keys list",
      "keys revoke",
      "keys limit",
      "plan set",
      "status set",
      "cadence set",
      "sharpen-stage set",
      "balance",
      "usage",
    ]) {
      assert.match(res.stdout, new RegExp(`^  ${command}`, "m"), command);
    }
    const sub = await cli("keys", "create", "--help");
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /Usage: quarry keys create <account>/);
  });

  test("accounts create prints the id; list and show find it on the default plan", async () => {
    const out = await ok("accounts", "create", "--name", "Acme");
    accountId = out.trim();
    assert.match(accountId, /^acct_[0-9A-Za-z]+$/);
    const list = await okJson<{ id: string; name: string }[]>("accounts", "list");
    assert.ok(
      list.some((a) => a.id === accountId && a.name === "Acme"),
      "the new account is listed",
    );
    assert.match(await ok("accounts", "list"), new RegExp(`${accountId}\\s+Acme\\s+free`));
    const shown = await okJson<AccountJson>("accounts", "show", accountId);
    assert.equal(shown.plan.id, "free");
    assert.equal(shown.status, "free");
    assert.equal(shown.cadence, null);
    assert.deepEqual(shown.credits, { used: 0, cap: 1000, period_end: null, reserved: 0 });
    assert.equal(shown.sharpen_stage, "stage1");
    assert.equal(shown.sharpen_stage_source, "plan_default");
    assert.deepEqual(shown.keys, { total: 0, active: 0 });
    assert.ok(shown.period_anchor !== null, "an account's period anchor is its creation");
    const text = await ok("accounts", "show", accountId);
    assert.match(text, /Plan\s+free/);
    assert.match(text, /Balance\s+0 \/ 1000 used/);
  });

  test("accounts create takes --plan", async () => {
    const id = (await ok("accounts", "create", "--name", "Paid", "--plan", "pro")).trim();
    const shown = await okJson<AccountJson>("accounts", "show", id);
    assert.equal(shown.plan.id, "pro");
    assert.equal(shown.credits.cap, 20000);
    assert.equal(shown.cadence, "monthly");
  });

  test("keys create prints the key once with a warning; keys list shows the hint, never the key", async () => {
    const res = await cli("keys", "create", accountId, "--name", "ci");
    assert.equal(res.code, 0, res.stderr);
    key = res.stdout.trim();
    assert.match(key, /^qk_live_[0-9A-Za-z]{32}$/);
    assert.match(res.stderr, /shown once/);
    assert.match(res.stderr, /stores only its SHA-256 hash/);

    const keys = await okJson<KeyJson[]>("keys", "list", accountId);
    assert.equal(keys.length, 1);
    const [row] = keys;
    keyId = row!.id;
    assert.equal(row!.name, "ci");
    assert.equal(row!.hint, key.slice(0, 12));
    assert.equal(row!.revoked_at, null);
    assert.deepEqual(Object.keys(row!).sort(), [
      "created_at",
      "credit_limit",
      "credits_reserved",
      "credits_used",
      "hint",
      "id",
      "name",
      "revoked_at",
    ]);
    assert.deepEqual([row!.credit_limit, row!.credits_used], [null, null], "no limit of its own: its use is not counted");

    const text = await ok("keys", "list", accountId);
    assert.ok(text.includes(key.slice(0, 12)), `the hint should be listed: ${text}`);
    assert.ok(!text.includes(key), "the plaintext key must not be listed");
    assert.ok(!/[0-9a-f]{64}/.test(text), "no hash in the listing");
    assert.ok(!JSON.stringify(keys).includes(key.slice(12)), "no key material past the hint");
  });

  test("the created key works against the API", async () => {
    const res = await api("/v1/account", key);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { plan: { id: string } };
    assert.equal(body.plan.id, "free");
  });

  test("plan, status, cadence and Sharpen stage are set and shown", async () => {
    const planned = await okJson<AccountJson>("plan", "set", accountId, "pro");
    assert.equal(planned.plan.id, "pro");
    assert.equal(planned.credits.cap, 20000);
    assert.ok(planned.credits.period_end !== null, "a monthly plan has a period end");
    // Another paid plan starts a subscription now: its period ends a month after the new anchor.
    const anchor = Date.parse(planned.period_anchor ?? "");
    assert.ok(anchor > 0, "the paid plan has a period anchor");
    assert.equal(planned.credits.period_end, new Date(addMonths(anchor, 1)).toISOString());
    assert.equal(planned.credits.used, 0);
    const same = await okJson<AccountJson>("plan", "set", accountId, "pro");
    assert.equal(same.period_anchor, planned.period_anchor, "the same plan keeps its subscription");
    assert.equal(same.credits.period_end, planned.credits.period_end);

    await ok("status", "set", accountId, "past_due");
    await ok("cadence", "set", accountId, "annual");
    await ok("sharpen-stage", "set", accountId, "stage3+");
    let shown = await okJson<AccountJson>("accounts", "show", accountId);
    assert.equal(shown.status, "past_due");
    assert.equal(shown.cadence, "annual");
    assert.equal(shown.sharpen_stage, "stage3+");
    assert.equal(shown.sharpen_stage_source, "saved");
    assert.equal(shown.sharpen_tier, "ultra2x");

    await ok("cadence", "set", accountId, "none");
    await ok("status", "set", accountId, "active");
    await ok("sharpen-stage", "set", accountId, "default");
    shown = await okJson<AccountJson>("accounts", "show", accountId);
    assert.equal(shown.cadence, null);
    assert.equal(shown.status, "active");
    assert.equal(shown.sharpen_stage, "stage2");
    assert.equal(shown.sharpen_stage_source, "plan_default");

    const text = await ok("accounts", "show", accountId);
    assert.match(text, /Status\s+active/);
    assert.match(text, /Cadence\s+none/);
    assert.match(text, /Sharpen\s+stage2 \(plan default\)/);
    assert.match(text, new RegExp(`Subscribed\\s+${planned.period_anchor}`));

    // The API sees what the CLI wrote.
    const account = (await (await api("/v1/account", key)).json()) as {
      plan: { id: string };
      status: string;
    };
    assert.equal(account.plan.id, "pro");
    assert.equal(account.status, "active");
  });

  test("balance and usage reflect calls made with the key", async () => {
    // markets.quote is billed (SerpApi); academic.search is free, so usage shows a 0-credit row too.
    const quote = await api("/v1/capabilities/markets.quote/execute", key, { symbol: "GOOGL:NASDAQ" });
    assert.equal(quote.status, 200);
    const charged = ((await quote.json()) as { charged_credits: number }).charged_credits;
    assert.ok(charged > 0, `markets.quote should be billed, charged ${charged}`);
    const free = await api("/v1/capabilities/academic.search/execute", key, {
      query: "state of open access",
    });
    assert.equal(free.status, 200);

    const balance = await okJson<{ used: number; cap: number; period_end: string | null }>(
      "balance",
      accountId,
    );
    assert.equal(balance.used, charged);
    assert.equal(balance.cap, 20000);
    assert.match(await ok("balance", accountId), new RegExp(`^${charged} / 20000 used`));

    type UsageRow = { capability: string; operation: string; calls: number; credits: number };
    const usage = await okJson<{ usage: UsageRow[]; totals: { calls: number; credits: number } }>(
      "usage",
      accountId,
    );
    assert.deepEqual(
      [...usage.usage].sort((a, b) => a.capability.localeCompare(b.capability)),
      [
        { capability: "academic.search", operation: "execute", calls: 1, credits: 0 },
        { capability: "markets.quote", operation: "execute", calls: 1, credits: charged },
      ],
    );
    assert.deepEqual(usage.totals, { calls: 2, credits: charged });
    const text = await ok("usage", accountId);
    assert.match(text, new RegExp(`markets\\.quote\\s+execute\\s+1\\s+${charged}`));

    const future = await okJson<{ usage: unknown[] }>("usage", accountId, "--since", "2999-01-01T00:00:00Z");
    assert.deepEqual(future.usage, []);
  });

  test("keys revoke makes the key answer 401 (from another process: within the key cache's 1 s)", async () => {
    assert.equal((await api("/v1/account", key)).status, 200, "the key works, and its lookup is cached");
    assert.match(await ok("keys", "revoke", keyId), /Revoked/);
    const revokedAt = Date.now();
    // The CLI is another process: the server's cached lookup (KEY_CACHE_TTL_MS, 1 s) expires first.
    let status = 0;
    while (Date.now() - revokedAt < 3000) {
      status = (await api("/v1/account", key)).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(status, 401);
    assert.ok(Date.now() - revokedAt < 1000 + 500, "refused within the cache lifetime");
    const keys = await okJson<KeyJson[]>("keys", "list", accountId);
    assert.ok(keys[0]!.revoked_at !== null, "the key is listed as revoked");
    // Idempotent: revoking again still succeeds, says so, and keeps the first revocation time.
    const again = await ok("keys", "revoke", keyId);
    assert.match(again, new RegExp(`^Key ${keyId} was already revoked at ${keys[0]!.revoked_at}; nothing changed\\.\n$`));
    const againJson = await okJson<{ already_revoked: boolean; revoked_at: string }>("keys", "revoke", keyId);
    assert.deepEqual(againJson, { id: keyId, revoked: true, revoked_at: keys[0]!.revoked_at, already_revoked: true });
  });

  // In this process (runCli, the CLI's own entry minus the process): the commands' meaning, quickly;
  // the other tests run the CLI as a child process, which is slow enough to matter here.
  test("keys create --limit and keys limit: the key is held to its own limit by the server; none removes it", async () => {
    const budgetAccount = (await okHere("accounts", "create", "--name", "Budgets", "--plan", "pro")).trim();
    const made = await okJsonHere<{ id: string; key: string; credit_limit: number | null }>(
      "keys", "create", budgetAccount, "--name", "agent", "--limit", "5",
    );
    assert.equal(made.credit_limit, 5);
    const plain = await cliHere("keys", "create", budgetAccount, "--name", "agent2", "--limit", "7");
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /limited to 7 credits per period/);
    const read = () =>
      fetch(`${quarry.url}/v1/capabilities/web.read/execute`, {
        method: "POST",
        headers: { authorization: `Bearer ${made.key}`, "content-type": "application/json", "cache-control": "no-cache" },
        body: JSON.stringify({ url: "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/" }),
      });
    assert.equal((await read()).status, 200, "5 credits fit under 5");
    const refused = await read();
    assert.equal(refused.status, 402);
    const { error } = (await refused.json()) as { error: { code: string; hint: string } };
    assert.equal(error.code, "credits_exhausted");
    assert.match(error.hint, /This key's limit is 5 credits per period; 5 are used or held\. .*`quarry keys limit`/);

    const listed = await okJsonHere<KeyJson[]>("keys", "list", budgetAccount);
    const agent = listed.find((k) => k.id === made.id)!;
    assert.deepEqual([agent.credit_limit, agent.credits_used, agent.credits_reserved], [5, 5, 0]);
    assert.match(await okHere("keys", "list", budgetAccount), new RegExp(`${made.id}\\s+qk_live_\\w{4}…\\s+agent\\s+5/5\\s`));

    const raised = await okHere("keys", "limit", made.id, "10");
    assert.equal(raised, `Key ${made.id} ("agent") may spend 10 credits per billing period; 5 used this period.\n`);
    // The server sees a change made by another process within its key cache's lifetime (1 s).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await read()).status, 200, "raised: through again");

    const removed = await okJsonHere<{ credit_limit: number | null; credits_used: number | null }>("keys", "limit", made.id, "none");
    assert.deepEqual([removed.credit_limit, removed.credits_used], [null, null]);
    assert.match(await okHere("keys", "limit", made.id, "none"), /has no limit of its own now; the account's cap still applies/);
    assert.match(await okHere("keys", "list", budgetAccount), /agent\s+none\s/);

    await Promise.all([
      failsHere(/no key "key_nope"/, "keys", "limit", "key_nope", "5"),
      failsHere(/invalid limit "lots" \(expected a whole number of credits per period, 0 to \d+, or none\)/, "keys", "limit", made.id, "lots"),
      failsHere(/invalid limit "1\.5"/, "keys", "limit", made.id, "1.5"),
      failsHere(/invalid --limit "none" \(expected a whole number of credits per period, 0 to \d+\)/, "keys", "create", budgetAccount, "--limit", "none"),
      failsHere(/invalid --limit "12abc"/, "keys", "create", budgetAccount, "--limit", "12abc"),
      failsHere(/expected <key-id> <credits\|none>/, "keys", "limit", made.id),
      failsHere(/--limit does not apply to "keys list"/, "keys", "list", budgetAccount, "--limit", "5"),
    ]);
    const unchanged = await okJsonHere<KeyJson[]>("keys", "list", budgetAccount);
    assert.equal(unchanged.length, 2, "no key made by a refused create");
  });

  test("in-doubt: none on the embedded store; settling needs PostgreSQL", async () => {
    assert.equal(await ok("in-doubt", "list"), `No calls in doubt in ${join(dataDir, "in-doubt")}.\n`);
    assert.deepEqual(await okJson("in-doubt", "list"), []);
    await fails(/calls in doubt are kept only with DATABASE_URL \(PostgreSQL\)/, "in-doubt", "settle");
  });

  test("bad input exits 1 with one clear line", async () => {
    // Independent read-only or refused calls: run them side by side to keep the suite quick.
    await Promise.all([
      fails(/No account "acct_nope"/, "accounts", "show", "acct_nope"),
      fails(/No account/, "balance", "acct_nope"),
      fails(/No account/, "keys", "create", "acct_nope"),
      fails(/no key "key_nope"/, "keys", "revoke", "key_nope"),
      fails(/unknown plan "gold".*free, pro/, "plan", "set", accountId, "gold"),
      fails(/unknown plan "gold"/, "accounts", "create", "--name", "x", "--plan", "gold"),
      fails(/needs --name/, "accounts", "create"),
      fails(/invalid status "paused"/, "status", "set", accountId, "paused"),
      fails(/invalid cadence "weekly"/, "cadence", "set", accountId, "weekly"),
      fails(/invalid Sharpen stage "stage9"/, "sharpen-stage", "set", accountId, "stage9"),
      fails(/invalid --since/, "usage", accountId, "--since", "yesterday"),
      fails(/unknown command "frobnicate"/, "frobnicate"),
      fails(/unknown command "keys frob"/, "keys", "frob"),
      fails(/expected <account>/, "keys", "list"),
      fails(/--plan does not apply/, "keys", "create", accountId, "--plan", "pro"),
      fails(/Unknown option '--bogus'/, "accounts", "list", "--bogus"),
      fails(/--name is longer than 200 characters/, "accounts", "create", "--name", "a".repeat(201)),
      fails(/--name must not hold control characters/, "accounts", "create", "--name", "two\nlines"),
    ]);
  });

  test("a DATA_DIR without a database is refused by every command but accounts create, which makes one", async () => {
    const empty = mkdtempSync(join(tmpdir(), "quarry-cli-empty-"));
    const missing = join(empty, "typo");
    try {
      for (const args of [["accounts", "list"], ["balance", "acct_x"], ["keys", "revoke", "key_x"]]) {
        const res = await cliIn(missing, ...args);
        assert.equal(res.code, 1, args.join(" "));
        assert.match(res.stderr, /^quarry: error: no Quarry database at .*typo.quarry\.db: check DATA_DIR/);
        assert.equal(existsSync(missing), false, "nothing is created");
      }
      const made = await cliIn(missing, "accounts", "create", "--name", "First");
      assert.equal(made.code, 0, made.stderr);
      const listed = await cliIn(missing, "accounts", "list");
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /First/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test("logins: create reads the password from stdin and stores only its hash; list, password, delete", async () => {
    const account = (await ok("accounts", "create", "--name", "People")).trim();
    const made = await cliWithInput("correct horse battery\n", "logins", "create", account, " Ada@Example.com ");
    assert.equal(made.code, 0, made.stderr);
    const loginId = made.stdout.trim();
    assert.match(loginId, /^login_[0-9A-Za-z]+$/);
    assert.match(made.stderr, /ada@example\.com can now sign in to account acct_\w+ at http:\/\/127\.0\.0\.1:8080\/dashboard/);
    const listed = await okJson<{ id: string; email: string; last_sign_in_at: string | null }[]>("logins", "list", account);
    assert.deepEqual(
      listed.map((l) => [l.id, l.email, l.last_sign_in_at]),
      [[loginId, "ada@example.com", null]],
    );
    assert.doesNotMatch(JSON.stringify(listed), /scrypt|horse/, "never the password or its hash");
    // The login signs in to the running server's dashboard.
    const visitor = new Visitor(quarry.url);
    assert.equal((await visitor.signIn("ada@example.com", "correct horse battery")).status, 303);
    assert.equal((await visitor.get("/dashboard")).status, 200);
    const stored = await quarry.store.findLoginByEmail("ada@example.com");
    assert.match(stored!.passwordHash, /^scrypt\$32768\$8\$3\$/);
    assert.doesNotMatch(stored!.passwordHash, /horse/);

    const refusals = [
      [/exists already/, "another password\n", account, "ada@example.com"],
      [/at least 10 characters/, "short\n", account, "bob@example.com"],
      [/no password on stdin/, "", account, "bob@example.com"],
      [/not an email address/, "long enough password\n", account, "bob"],
      [/No account "acct_nope"/, "long enough password\n", "acct_nope", "bob@example.com"],
    ] as const;
    for (const [pattern, input, acct, email] of refusals) {
      const res = await cliWithInput(input, "logins", "create", acct, email);
      assert.equal(res.code, 1, `${email}: ${res.stdout}`);
      assert.match(res.stderr.trim(), pattern);
    }

    const changed = await cliWithInput("a brand new passphrase\n", "logins", "password", "ADA@example.com");
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /New password set for ada@example\.com/);
    assert.notEqual((await quarry.store.findLoginByEmail("ada@example.com"))!.passwordHash, stored!.passwordHash);
    assert.equal((await visitor.get("/dashboard")).status, 303, "a new password ends the person's sessions");
    assert.match(await ok("logins", "delete", "ada@example.com"), /Deleted the login ada@example\.com/);
    assert.equal(await ok("logins", "list", account), "No logins.\n");
    await fails(/No login for ada@example\.com/, "logins", "delete", "ada@example.com");
  });

  test("a stage above the plan's Sharpen tier is refused", async () => {
    const free = (await ok("accounts", "create", "--name", "Small")).trim();
    await fails(/stage "stage3" exceeds plan "free"/, "sharpen-stage", "set", free, "stage3");
    await ok("sharpen-stage", "set", free, "stock");
    assert.equal((await okJson<AccountJson>("accounts", "show", free)).sharpen_stage, "stock");
  });
});
