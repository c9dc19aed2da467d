/**
 * Requests sent too slowly (REQUEST_TIMEOUT_MS): a body trickled a byte at a time, answered or not,
 * holds its connection only until the request time is up. Each such request is refused in the
 * envelope or, answered already, keeps its one answer; calls pipelined before it keep theirs and
 * are charged once; nothing is charged for the refused one.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { openRaw, type RawConnection, splitAnswers } from "./helpers/raw-http.ts";

const REQUEST_TIMEOUT_MS = 1000;
let h: Harness;
let port: number;
/** The server's log lines (JSON), for matching an answer's request id to its access line. */
const lines: string[] = [];
before(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  h = await startHarness({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) }, logger: { level: "info", stream } });
  port = Number(new URL(h.url).port);
});
after(async () => {
  await h.close();
});

const QUOTE_PATH = "/v1/capabilities/markets.quote/execute";
const QUOTE_BODY = JSON.stringify({ symbol: "GOOGL:NASDAQ" });

function head(path: string, key: string, length: number): string {
  return (
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${key}\r\n` +
    `content-type: application/json\r\ncontent-length: ${length}\r\n\r\n`
  );
}

/** Send a space (JSON whitespace) every 200 ms until the connection closes; resolves with how long it stayed open. */
async function trickle(conn: RawConnection, started: number): Promise<number> {
  const timer = setInterval(() => conn.socket.write(" "), 200);
  const bound = sleep(10_000).then(() => "still open" as const);
  const outcome = await Promise.race([conn.closed.then(() => "closed" as const), bound]);
  clearInterval(timer);
  conn.socket.destroy();
  assert.equal(outcome, "closed", "the connection is closed once the request time is up");
  return Date.now() - started;
}

test("a body trickled after a 401 holds its connection only until the request time is up, with one answer", async () => {
  const conn = openRaw(port);
  const started = Date.now();
  conn.socket.write(head(QUOTE_PATH, `qk_live_${"x".repeat(32)}`, 1_000_000) + "{");
  const openMs = await trickle(conn, started);
  const { answers } = splitAnswers(conn.received());
  assert.deepEqual(
    answers.map((a) => a.status),
    [401],
    "the 401 and nothing after it",
  );
  assert.ok(openMs < REQUEST_TIMEOUT_MS + 2000, `open ${openMs} ms`);
});

test("a billed call's body trickled past the request time is refused in the envelope, charged nothing", async () => {
  const { key, accountId } = await h.account("free");
  const conn = openRaw(port);
  const started = Date.now();
  conn.socket.write(head(QUOTE_PATH, key, QUOTE_BODY.length + 100) + QUOTE_BODY);
  const openMs = await trickle(conn, started);
  const { answers } = splitAnswers(conn.received());
  assert.deepEqual(
    answers.map((a) => a.status),
    [400],
  );
  const body = JSON.parse(answers[0]!.body);
  assert.equal(body.error.code, "invalid_request");
  assert.match(body.error.message, /not received in time/);
  assert.equal(answers[0]!.headers["x-request-id"], body.error.requestId);
  assert.equal(answers[0]!.headers.connection, "close");
  // The request's own id: the one its access line shows.
  const access = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request" && l.reqId === body.error.requestId);
  assert.equal(access?.status, 400, `an access line with the answer's id ${body.error.requestId}`);
  assert.ok(openMs < REQUEST_TIMEOUT_MS + 2000, `open ${openMs} ms`);
  assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0);
});

test("a billed call pipelined before a trickled body keeps its answer and charge; then the refusal, then the close", async () => {
  const { key, accountId } = await h.account("free");
  const conn = openRaw(port);
  const started = Date.now();
  conn.socket.write(head(QUOTE_PATH, key, QUOTE_BODY.length) + QUOTE_BODY + head(QUOTE_PATH, key, 500) + "{");
  const openMs = await trickle(conn, started);
  const { answers } = splitAnswers(conn.received());
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 400],
  );
  assert.equal(JSON.parse(answers[0]!.body).charged_credits, 4);
  assert.ok(openMs < REQUEST_TIMEOUT_MS + 2000, `open ${openMs} ms`);
  const account = await h.store.getAccount(accountId);
  assert.equal(account?.creditsUsed, 4, "the answered call, once");
  assert.equal(await h.store.ledgerTotal(accountId), 4);
});

test("a call read from the connection after one timed out is not run: its answer would be lost with the connection", async () => {
  const { key, accountId } = await h.account("free");
  const conn = openRaw(port);
  // A: billed and slow upstream, so the connection stays open past B's request time.
  h.replay.setFault("serpapi", { kind: "latency", ms: 3000, times: 1 });
  const from = h.replay.requests.length;
  conn.socket.write(head(QUOTE_PATH, key, QUOTE_BODY.length) + QUOTE_BODY + head(QUOTE_PATH, key, QUOTE_BODY.length) + QUOTE_BODY.slice(0, 5));
  await sleep(REQUEST_TIMEOUT_MS + 1000); // B's request time is up: its refusal waits behind A's answer
  // The rest of B, then C, a billed call of its own.
  conn.socket.write(QUOTE_BODY.slice(5) + head(QUOTE_PATH, key, QUOTE_BODY.length) + QUOTE_BODY);
  await Promise.race([conn.closed, sleep(10_000)]);
  conn.socket.destroy();
  const { answers } = splitAnswers(conn.received());
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 400],
  );
  assert.equal(h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi").length, 1, "only A reached the provider");
  assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 4, "only A, the answered call, is charged");
  assert.equal(await h.store.ledgerTotal(accountId), 4);
});

test("a request sent at an ordinary pace is unaffected", async () => {
  const { key } = await h.account("free");
  const res = await h.call("POST", QUOTE_PATH, { key, body: JSON.parse(QUOTE_BODY) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
});
