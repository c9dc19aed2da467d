/**
 * Open-loop load: requests are sent on a fixed schedule (one every 1/rate s) whatever the server
 * does, over a pool of `connections` keep-alive connections, and each latency is measured from
 * the request's scheduled time (so a stall delays the requests behind it and shows in their
 * latency instead of hiding as fewer requests sent). autocannon's own rate option sends each
 * second's requests in a burst at the start of the second, which measures the burst, not the
 * server.
 */
import { Pool } from "undici";
import { CpuTally, cpuMeter } from "./cpu.ts";
import { type LoadResult, type LoadSpec, loadResult } from "./load.ts";
import { percentile, Samples } from "./stats.ts";

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

/** What the measured phases of one side add up to. */
interface Tally {
  samples: Samples;
  statuses: Record<string, number>;
  errors: number;
  seconds: number;
}

const newTally = (): Tally => ({ samples: new Samples(), statuses: {}, errors: 0, seconds: 0 });

/** Run `seconds` of the schedule; with a tally, its responses are recorded into it. */
async function phase(pool: Pool, spec: OpenLoopSpec, seconds: number, tally: Tally | null): Promise<void> {
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
        if (!tally) return;
        tally.samples.push(performance.now() - scheduledAt);
        const k = String(res.statusCode);
        tally.statuses[k] = (tally.statuses[k] ?? 0) + 1;
      })
      .catch(() => {
        if (tally) tally.errors++;
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
  if (tally) tally.seconds += (performance.now() - started) / 1000;
}

const openPool = (spec: OpenLoopSpec) =>
  new Pool(spec.url, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 30_000 });

/**
 * Several open-loop runs compared on a noisy host: after each one's warm-up, the measured time of
 * each is cut into `rounds` slices run in turn (a, b, a, b, …), and each one's latencies are pooled
 * over its slices. A stall of the host (another tenant, a burst of writeback) then lands on every
 * side alike instead of on whichever happened to be running, so their difference measures them
 * and not the moment. CPU per response is summed over each one's slices.
 */
export async function runOpenLoops(specs: OpenLoopSpec[], rounds: number): Promise<LoadResult[]> {
  const pools = specs.map(openPool);
  try {
    for (const [i, spec] of specs.entries())
      if (spec.warmup > 0) await phase(pools[i]!, spec, spec.warmup, null);
    const tallies = specs.map(newTally);
    const cpu = specs.map(() => new CpuTally());
    const sliceP99s = specs.map((): number[] => []);
    const sliceP50s = specs.map((): number[] => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, spec] of specs.entries()) {
        const tally = tallies[i]!;
        const before = tally.samples.count;
        const meter = cpuMeter(spec.cpuOf);
        await phase(pools[i]!, spec, spec.duration / rounds, tally);
        const responses = tally.samples.count - before;
        const slice = tally.samples.sortedFrom(before);
        sliceP99s[i]!.push(percentile(slice, 99));
        sliceP50s[i]!.push(percentile(slice, 50));
        cpu[i]!.add(meter(responses), responses);
      }
    }
    return specs.map((spec, i) => {
      const { samples, statuses, errors, seconds } = tallies[i]!;
      return {
        ...loadResult(spec, seconds, samples, statuses, errors, cpu[i]!.perResponse(samples.count)),
        sliceP99s: sliceP99s[i]!,
        sliceP50s: sliceP50s[i]!,
      };
    });
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
