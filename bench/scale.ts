/**
 * The scale figure of issue 5 item 6, in its own server process: sequential execute latency on an
 * empty store, then on the same store after writing N expired sessions (one record each) straight
 * into its SQLite file with better-sqlite3 in one transaction, then the time of expiry sweep
 * batches of 1000 (`store.sweepExpired`, run and timed inside the server process).
 */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { bearer, expectOk, pick, postJson } from "./http.ts";
import type { BenchOptions } from "./options.ts";
import { consoleTable, fmt, markdownTable, TARGET_HEADER, type Target, targetRow } from "./report.ts";
import { startServerProcess } from "./server-process.ts";
import { mean, percentile } from "./stats.ts";
import { EXECUTE_BODY, EXECUTE_PATH } from "./throughput.ts";

const DAY_MS = 24 * 3600 * 1000;
/** Default SESSION_SWEEP_GRACE_SECONDS: the runtime sweeps what expired more than this ago. */
const GRACE_MS = 7 * DAY_MS;
const SWEEP_BATCH = 1000;
const SWEEP_BATCHES = 5;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

interface SessionTemplate {
  id: string;
  account_id: string;
  capability: string;
  query: string;
  state: string;
}

interface RecordTemplate {
  summary: string;
  ref: string | null;
  detail: string | null;
  links: string | null;
  actions: string;
}

export interface LatencyFigures {
  p50: number;
  p99: number;
  mean: number;
  count: number;
}

/**
 * Ids in the service's format (`<prefix>_` + 16 base62), from one random buffer at a time: fast
 * enough for a million rows. Slightly non-uniform (byte % 62); random keys still spread over the
 * B-trees as real ones do.
 */
function idMaker(prefix: string): () => string {
  let buf = randomBytes(1 << 16);
  let pos = 0;
  return () => {
    if (pos + 16 > buf.length) {
      buf = randomBytes(1 << 16);
      pos = 0;
    }
    let id = `${prefix}_`;
    for (let i = 0; i < 16; i++) id += ALPHABET[(buf[pos++] ?? 0) % 62];
    return id;
  };
}

/** `count` sequential calls after `warmup` unmeasured ones; latency to the end of each body. */
export async function sequentialExecute(
  url: string,
  key: string,
  count: number,
  warmup: number,
): Promise<LatencyFigures> {
  const auth = bearer(key);
  for (let i = 0; i < warmup; i++)
    expectOk("warm-up execute", await postJson(url, EXECUTE_PATH, EXECUTE_BODY, auth));
  const ms = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const res = await postJson(url, EXECUTE_PATH, EXECUTE_BODY, auth);
    expectOk("execute", res);
    ms[i] = res.ms;
  }
  ms.sort();
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), mean: mean(ms), count };
}

/** Write `count` expired sessions with one record each into the store's file; returns timings. */
function fillSessions(dbFile: string, templateId: string, count: number) {
  const db = new Database(dbFile);
  try {
    db.pragma("busy_timeout = 10000");
    db.pragma("foreign_keys = ON");
    db.pragma("cache_size = -262144");
    // A real session of the service is the template: the Seafood search made for it (first page
    // of a 29-meal list: summary records without stored details, the common shape).
    const session = db
      .prepare("SELECT id, account_id, capability, query, state FROM sessions WHERE id = ?")
      .get(templateId) as SessionTemplate | undefined;
    if (!session) throw new Error(`no session ${templateId} to copy`);
    const record = db
      .prepare(
        "SELECT summary, ref, detail, links, actions FROM records WHERE search_id = ? ORDER BY position LIMIT 1",
      )
      .get(session.id) as RecordTemplate | undefined;
    if (!record) throw new Error(`session ${session.id} has no record to copy`);

    const insertSession = db.prepare(
      "INSERT INTO sessions (id, account_id, capability, query, state, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const insertRecord = db.prepare(
      "INSERT INTO records (id, search_id, account_id, position, summary, ref, detail, links, actions)" +
        " VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?)",
    );
    const searchId = idMaker("srch");
    const recordId = idMaker("rec");
    // Expired between 14 and 8 days ago: past the default 7-day grace, so all are sweepable.
    const now = Date.now();
    const oldest = now - 14 * DAY_MS;
    const span = 6 * DAY_MS;
    const fill = db.transaction((n: number) => {
      for (let i = 0; i < n; i++) {
        const id = searchId();
        const expiresAt = oldest + Math.floor(Math.random() * span);
        insertSession.run(
          id,
          session.account_id,
          session.capability,
          session.query,
          session.state,
          expiresAt,
          expiresAt - DAY_MS,
        );
        insertRecord.run(
          recordId(),
          id,
          session.account_id,
          record.summary,
          record.ref,
          record.detail,
          record.links,
          record.actions,
        );
      }
    });
    const started = process.hrtime.bigint();
    fill.immediate(count);
    const fillMs = Number(process.hrtime.bigint() - started) / 1e6;
    const checkpointStarted = process.hrtime.bigint();
    // The server's own checkpointer may hold the checkpoint lock at that moment (busy: 1 comes back
    // at once): retry until the WAL is empty, so the figures below are taken on a checkpointed file.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (const deadline = Date.now() + 120_000; ; ) {
      const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
      if (!result || result.busy === 0) break;
      if (Date.now() > deadline) throw new Error("could not checkpoint the filled store within 2 minutes");
      Atomics.wait(pause, 0, 0, 20);
    }
    const checkpointMs = Number(process.hrtime.bigint() - checkpointStarted) / 1e6;
    return { fillMs, checkpointMs };
  } finally {
    db.close();
  }
}

export interface ScaleReport {
  markdown: string;
}

export async function runScale(options: BenchOptions): Promise<ScaleReport> {
  const server = await startServerProcess({ cpuProfDir: options.cpuProfDir, dataParent: options.dataParent });
  try {
    const n = options.scaleSessions;
    const count = options.scaleRequests;
    const warmup = Math.max(200, Math.floor(count / 10));
    console.log(
      `\nScale: ${count} sequential executes (after ${warmup} warm-up) on an empty store, then with ${n.toLocaleString("en-US")} sessions`,
    );
    expectOk(
      "sanity execute",
      await postJson(server.gatewayUrl, EXECUTE_PATH, EXECUTE_BODY, bearer(server.key)),
    );
    const template = await postJson(
      server.gatewayUrl,
      EXECUTE_PATH,
      { category: "Seafood", num: 1 },
      bearer(server.key),
    );
    expectOk("template session", template);
    const templateId = pick(template.body, "search_id");
    if (typeof templateId !== "string") throw new Error("the template execute answered without a search_id");
    const empty = await sequentialExecute(server.gatewayUrl, server.key, count, warmup);
    console.log(`  empty store: p50 ${fmt.ms(empty.p50)} ms, p99 ${fmt.ms(empty.p99)} ms`);

    console.log(
      `  writing ${n.toLocaleString("en-US")} expired sessions (one record each) in one transaction ...`,
    );
    const sizeBefore = statSync(server.dbFile).size;
    const { fillMs, checkpointMs } = fillSessions(server.dbFile, templateId, n);
    const dbMb = statSync(server.dbFile).size / (1024 * 1024);
    const perSession = n > 0 ? (statSync(server.dbFile).size - sizeBefore) / n : 0;
    console.log(
      `  filled in ${(fillMs / 1000).toFixed(1)} s (+ ${(checkpointMs / 1000).toFixed(1)} s WAL checkpoint), ` +
        `database ${dbMb.toFixed(0)} MB (~${Math.round(perSession)} bytes a session with its record)`,
    );
    const filled = await sequentialExecute(server.gatewayUrl, server.key, count, warmup);
    console.log(`  filled store: p50 ${fmt.ms(filled.p50)} ms, p99 ${fmt.ms(filled.p99)} ms`);

    const sweeps: { ms: number; deleted: number }[] = [];
    const before = Date.now() - GRACE_MS;
    for (let i = 0; i < SWEEP_BATCHES; i++) sweeps.push(await server.sweep(before, SWEEP_BATCH));
    const sweepMs = sweeps.map((s) => s.ms).sort((a, b) => a - b);
    const first = sweeps[0];
    const deleted = sweeps.reduce((sum, s) => sum + s.deleted, 0);

    const ratio = (a: number, b: number) => a / b;
    const within = (r: number) => Number.isFinite(r) && r <= 1.2;
    const label = `${n.toLocaleString("en-US")} sessions`;
    const targets: Target[] = [
      {
        label: `execute p50, empty → ${label}`,
        measured: `${fmt.ms(empty.p50)} → ${fmt.ms(filled.p50)} ms (${fmt.ratio(ratio(filled.p50, empty.p50))})`,
        goal: "within 20% (≤ 1.20×)",
        pass: within(ratio(filled.p50, empty.p50)),
      },
      {
        label: `execute p99, empty → ${label}`,
        measured: `${fmt.ms(empty.p99)} → ${fmt.ms(filled.p99)} ms (${fmt.ratio(ratio(filled.p99, empty.p99))})`,
        goal: "within 20% (≤ 1.20×)",
        pass: within(ratio(filled.p99, empty.p99)),
      },
      {
        label: `fill ${label} + 1 record each (direct, one transaction)`,
        measured:
          `${(fillMs / 1000).toFixed(1)} s + ${(checkpointMs / 1000).toFixed(1)} s checkpoint, ` +
          `${dbMb.toFixed(0)} MB (~${Math.round(perSession)} B a session)`,
        goal: "-",
        pass: null,
      },
      {
        label: `expiry sweep batch (${SWEEP_BATCH} sessions + records)`,
        measured: `first ${fmt.ms(first?.ms ?? Number.NaN)} ms, median of ${SWEEP_BATCHES} ${fmt.ms(percentile(sweepMs, 50))} ms (${deleted} deleted)`,
        goal: "-",
        pass: null,
      },
    ];
    console.log("\nScale targets");
    console.log(consoleTable(TARGET_HEADER, targets.map(targetRow)));
    const markdown = [
      `Scale: ${count} sequential REST executes (recipes.search) per store state, latency to the end of the body.`,
      "",
      markdownTable(TARGET_HEADER, targets.map(targetRow)),
    ].join("\n");
    return { markdown };
  } finally {
    await server.stop();
  }
}
