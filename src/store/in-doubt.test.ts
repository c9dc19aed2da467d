import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { type InDoubtCall, InDoubtJournal, listInDoubt, parseInDoubt, retryUnresolved } from "./in-doubt.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "quarry-in-doubt-"));
  dirs.push(dir);
  return join(dir, "in-doubt");
}

const STORE = "db-1";

function call(n: number, schema: string | null = null, storeId: string | null = STORE): InDoubtCall {
  return {
    xid: String(1000 + n),
    schema,
    storeId,
    periodEnd: n % 2 === 0 ? null : 1_790_000_000_000,
    ledger: { id: `led_${n}`, requestId: `req_${n}`, accountId: "acc_1", credits: n },
    newSessionId: n % 2 === 0 ? `s_${n}` : null,
    update:
      n % 2 === 0
        ? null
        : {
            id: "s_old",
            state: { page: 2 },
            previousQuery: { q: "tea" },
            previousState: { page: 1 },
            recordIds: ["r_1", "r_2"],
          },
  };
}

test("a kept call reads back as written; removing it leaves nothing", async () => {
  const dir = freshDir();
  const journal = new InDoubtJournal(dir);
  assert.deepEqual(
    (await journal.load(null, STORE)).mine,
    [],
    "no directory yet: nothing kept, nothing created",
  );
  assert.equal(existsSync(dir), false);
  await journal.add(call(1));
  await journal.add(call(2));
  assert.deepEqual(
    readdirSync(dir).sort(),
    ["led_1.json", "led_2.json"],
    "one file per call, no temporary left",
  );
  assert.deepEqual((await journal.load(null, STORE)).mine, [call(1), call(2)]);
  await journal.remove(call(1));
  await journal.remove(call(1)); // another store removed it first: fine
  assert.deepEqual((await journal.load(null, STORE)).mine, [call(2)]);
});

test("each store takes only the calls of its own schema", async () => {
  const journal = new InDoubtJournal(freshDir());
  await journal.add(call(1, "t_a"));
  await journal.add(call(2, "t_b"));
  await journal.add(call(3));
  assert.deepEqual((await journal.load("t_a", STORE)).mine, [call(1, "t_a")]);
  assert.deepEqual((await journal.load("t_b", STORE)).mine, [call(2, "t_b")]);
  assert.deepEqual((await journal.load(null, STORE)).mine, [call(3)]);
});

test("a store takes the calls of its own database; those of another stay on disk for it", async () => {
  const dir = freshDir();
  const journal = new InDoubtJournal(dir);
  await journal.add(call(1));
  await journal.add(call(2, null, "db-2"));
  // Written before calls carried their database: taken by a store of the same schema.
  const legacy = call(3, null, null);
  const { storeId: _storeId, ...withoutStoreId } = legacy;
  writeFileSync(join(dir, "led_3.json"), JSON.stringify(withoutStoreId));
  assert.deepEqual(await journal.load(null, STORE), {
    mine: [call(1), legacy],
    foreign: [call(2, null, "db-2")],
  });
  assert.deepEqual(await journal.load(null, "db-2"), {
    mine: [call(2, null, "db-2"), legacy],
    foreign: [call(1)],
  });
  assert.deepEqual(
    readdirSync(dir).sort(),
    ["led_1.json", "led_2.json", "led_3.json"],
    "nothing moved or removed",
  );
});

test("a call set aside goes to unresolved/ and is not loaded again", async () => {
  const dir = freshDir();
  const journal = new InDoubtJournal(dir);
  await journal.add(call(1));
  await journal.setAside(call(1));
  assert.deepEqual((await journal.load(null, STORE)).mine, []);
  assert.equal(journal.unresolvedFile(call(1)), join(dir, "unresolved", "led_1.json"));
  assert.deepEqual(JSON.parse(readFileSync(journal.unresolvedFile(call(1)), "utf8")), call(1));
});

test("files that are not calls are moved aside, not taken and not lost", async () => {
  const dir = freshDir();
  const journal = new InDoubtJournal(dir);
  await journal.add(call(1));
  writeFileSync(join(dir, "torn.json"), '{"xid": "12');
  // A valid call under another name: its name would not be the one removed once settled.
  writeFileSync(join(dir, "renamed.json"), JSON.stringify(call(2)));
  writeFileSync(join(dir, "notes.txt"), "left alone");
  assert.deepEqual((await journal.load(null, STORE)).mine, [call(1)]);
  assert.deepEqual(readdirSync(join(dir, "unresolved")).sort(), ["renamed.json", "torn.json"]);
  assert.ok(existsSync(join(dir, "notes.txt")), "existsSync(join(dir, \"notes.txt\"))");
});

test("parseInDoubt refuses what this version did not write", () => {
  const good = call(1);
  assert.deepEqual(parseInDoubt(JSON.stringify(good)), good);
  const broken: unknown[] = [
    { ...good, xid: 12 },
    { ...good, xid: "12; DROP" },
    { ...good, ledger: { ...good.ledger, id: "../../etc/passwd" } },
    { ...good, ledger: { ...good.ledger, credits: 1.5 } },
    { ...good, periodEnd: "soon" },
    { ...good, update: { ...good.update, recordIds: [1] } },
    { ...good, update: { id: "s", recordIds: [] } },
    { ...good, storeId: 7 },
    { ...good, keyId: 7 },
    [],
  ];
  for (const v of broken) assert.equal(parseInDoubt(JSON.stringify(v)), null, JSON.stringify(v));
  assert.equal(parseInDoubt("not json"), null);
});

test("a call charged to a key's limit keeps its key on disk; files without one read as before", async () => {
  const journal = new InDoubtJournal(freshDir());
  const keyed: InDoubtCall = { ...call(3), keyId: "key_budgeted" };
  await journal.add(keyed);
  await journal.add(call(4));
  const { mine } = await journal.load(null, STORE);
  assert.deepEqual(mine, [keyed, call(4)]);
  assert.equal(mine[1]!.keyId, undefined, "no key: the undo gives back the account's credits only");
  assert.deepEqual(parseInDoubt(JSON.stringify({ ...call(5), keyId: null })), { ...call(5), keyId: null });
});

test("a ledger id that could escape the directory is refused when writing", async () => {
  const journal = new InDoubtJournal(freshDir());
  const bad = { ...call(1), ledger: { ...call(1).ledger, id: "../x" } };
  await assert.rejects(journal.add(bad), /unexpected ledger id/);
});

test("the operator's view lists pending and set-aside calls; retrying puts the set-aside ones back", async () => {
  const dir = freshDir();
  assert.deepEqual(await listInDoubt(dir), [], "no directory: nothing");
  assert.equal(await retryUnresolved(dir), 0);
  const journal = new InDoubtJournal(dir);
  await journal.add(call(1));
  await journal.add(call(2));
  await journal.setAside(call(2));
  writeFileSync(join(dir, "torn.json"), "{");
  await journal.load(null, STORE); // moves torn.json aside
  assert.deepEqual(await listInDoubt(dir), [
    { file: join(dir, "led_1.json"), state: "pending", call: call(1) },
    { file: join(dir, "unresolved", "led_2.json"), state: "unresolved", call: call(2) },
    { file: join(dir, "unresolved", "torn.json"), state: "unresolved", call: null },
  ]);

  assert.equal(await retryUnresolved(dir), 2);
  assert.deepEqual(readdirSync(join(dir, "unresolved")), [], "nothing left aside");
  // The call is loaded again; the unreadable file goes aside again on the next load.
  assert.deepEqual((await journal.load(null, STORE)).mine, [call(1), call(2)]);
  assert.deepEqual(readdirSync(join(dir, "unresolved")), ["torn.json"]);

  // A call both pending and set aside (two stores): the pending file is kept as it is.
  await journal.setAside(call(1));
  await journal.add(call(1));
  assert.equal(await retryUnresolved(dir), 2);
  assert.deepEqual((await journal.load(null, STORE)).mine, [call(1), call(2)]);
});
