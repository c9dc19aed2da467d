/**
 * The worker thread of `bench/xbrl.ts`: the replay upstream and the load clients, on their own
 * event loop, so the thread under measurement runs Quarry alone. Started with `workerData`
 * {fixturesDir}; posts {replayUrl}, waits for {url, key, body, clients, seconds, rate?}, runs the load and
 * posts {ok, failed, statuses, latencies}.
 */
import { parentPort, workerData } from "node:worker_threads";
import { startReplay } from "../src/demo/replay/replay-server.ts";

interface Load {
  url: string;
  key: string;
  body: unknown;
  clients: number;
  seconds: number;
  /** Paced: fact-view pairs (execute + record action) a second across all clients; absent: as fast as they answer. */
  rate?: number;
}

async function post(base: string, key: string, path: string, payload: unknown): Promise<{ status: number; json: { results?: { record_id: string }[] }; ms: number }> {
  const t = performance.now();
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(payload),
  });
  const json = (await res.json()) as { results?: { record_id: string }[] };
  return { status: res.status, json, ms: performance.now() - t };
}

async function run(load: Load) {
  const end = Date.now() + load.seconds * 1000;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let ok = 0;
  let failed = 0;
  const count = (status: number) => {
    if (status === 200) ok += 1;
    else {
      failed += 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(
    Array.from({ length: load.clients }, async (_, i) => {
      // Paced: client i starts a pair every clients/rate seconds, staggered, however long the answers take.
      const every = load.rate === undefined ? 0 : (load.clients / load.rate) * 1000;
      let slot = performance.now() + (every * i) / load.clients;
      while (Date.now() < end) {
        if (every > 0) {
          const wait = slot - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          slot += every;
          if (Date.now() >= end) break;
        }
        const ex = await post(load.url, load.key, "/v1/capabilities/companies.financials/execute", load.body);
        latencies.push(ex.ms);
        count(ex.status);
        const recordId = ex.json.results?.[0]?.record_id;
        if (ex.status !== 200 || recordId === undefined) continue;
        const act = await post(load.url, load.key, "/v1/follow-up", { record_id: recordId, action: "financials" });
        latencies.push(act.ms);
        count(act.status);
      }
    }),
  );
  return { ok, failed, statuses, latencies };
}

void startReplay({ fixturesDir: (workerData as { fixturesDir: string }).fixturesDir, requestLog: 0 }).then((replay) => {
  parentPort!.on("message", (load: Load) => {
    void run(load).then((result) => parentPort!.postMessage(result));
  });
  parentPort!.postMessage({ replayUrl: replay.url });
});
