/**
 * Open-loop load: requests are sent on a fixed schedule (one every 1/rate s) whatever the server
 * does, over a pool of `connections` keep-alive connections, and each latency is measured from
 * the request's scheduled time (so a stall delays the requests behind it and shows in their
 * latency instead of hiding as fewer requests sent). autocannon's own rate option sends each
 * second's requests in a burst at the start of the second, which measures the burst, not the
 * server.
 */
import { Pool } from "undici";
import { cpuMeter } from "./cpu.ts";
import { type LoadResult, type LoadSpec, loadResult } from "./load.ts";
import { Samples } from "./stats.ts";

export interface OpenLoopSpec extends Pick<LoadSpec, "cpuOf"> {
  name: string;
  url: string;
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** Requests per second. */
  rate: number;
  connections: number;
  duration: number;
  warmup: number;
}

async function phase(pool: Pool, spec: OpenLoopSpec, seconds: number, record: boolean) {
  const samples = new Samples();
  const statuses: Record<string, number> = {};
  let errors = 0;
  const total = Math.round(spec.rate * seconds);
  const intervalMs = 1000 / spec.rate;
  const started = performance.now();
  const inflight = new Set<Promise<void>>();
  let sent = 0;
  const headers = { "content-type": "application/json", ...spec.headers };
  const send = (scheduledAt: number) => {
    const p = pool
      .request({ method: "POST", path: spec.path, body: spec.body, headers })
      .then(async (res) => {
        await res.body.dump();
        if (!record) return;
        samples.push(performance.now() - scheduledAt);
        const k = String(res.statusCode);
        statuses[k] = (statuses[k] ?? 0) + 1;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      // Send everything due by now, each stamped with its own scheduled time.
      while (sent < total && started + sent * intervalMs <= now) {
        send(started + sent * intervalMs);
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, Math.min(1, started + sent * intervalMs - performance.now())));
    };
    tick();
  });
  await Promise.all(inflight);
  return { samples, statuses, errors, seconds: (performance.now() - started) / 1000 };
}

export async function runOpenLoop(spec: OpenLoopSpec): Promise<LoadResult> {
  const pool = new Pool(spec.url, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    if (spec.warmup > 0) await phase(pool, spec, spec.warmup, false);
    const cpu = cpuMeter(spec.cpuOf);
    const { samples, statuses, errors, seconds } = await phase(pool, spec, spec.duration, true);
    return loadResult(spec, seconds, samples, statuses, errors, cpu(samples.count));
  } finally {
    await pool.close();
  }
}
