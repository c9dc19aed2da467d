/**
 * One load scenario with autocannon's programmatic API: an unmeasured warm-up with the same
 * requests, then the measured run. Latencies are taken from autocannon's per-response event at
 * full (sub-millisecond) precision, over every response, rather than from its integer histogram.
 */
import autocannon from "autocannon";
import { type CpuPerResponse, CpuTally, cpuMeter } from "./cpu.ts";
import { percentile, Samples } from "./stats.ts";

export interface LoadSpec {
  name: string;
  /** Base URL of the server (requests carry their own paths). */
  url: string;
  requests: autocannon.Request[];
  headers?: Record<string, string>;
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Unmeasured seconds before the measured run (0 for none). */
  warmup: number;
  /** Offered load in requests per second over all connections; unset = as fast as answered. */
  rate?: number;
  /** Context each connection starts with (sequences that carry ids between requests). */
  initialContext?: object;
  /** Awaited once between the warm-up and the measured run (no load in flight then). */
  onMeasureStart?: () => void | Promise<void>;
  /** Server process whose CPU time per response is reported (see cpu.ts). */
  cpuOf?: number;
  /** Called every `everyMs` during the measured run (RSS sampling). */
  onTick?: { everyMs: number; run: (elapsedMs: number) => void };
}

export interface LoadResult {
  name: string;
  connections: number;
  seconds: number;
  responses: number;
  rps: number;
  p50: number;
  p99: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** CPU µs per response in the server's loop thread, its other threads and the driver (Linux). */
  cpu?: CpuPerResponse;
  /** Runs in slices (runOpenLoops): each slice's own p99, in the order run. */
  sliceP99s?: number[];
  /** Runs in slices (runOpenLoops): each slice's own p50, in the order run. */
  sliceP50s?: number[];
  /** Runs in slices (runLoads): each slice's own req/s, in the order run. */
  sliceRps?: number[];
}

function once(options: autocannon.Options, onResponse?: (status: number, ms: number) => void) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err: unknown, result: autocannon.Result) =>
      err ? reject(err) : resolve(result),
    );
    if (onResponse) {
      instance.on("response", (_client, statusCode, _bytes, responseTime) =>
        onResponse(statusCode, responseTime),
      );
    }
  });
}

function baseOptions(spec: LoadSpec): autocannon.Options {
  return {
    url: spec.url,
    connections: spec.connections,
    requests: spec.requests,
    headers: { "content-type": "application/json", ...spec.headers },
    ...(spec.initialContext ? { initialContext: spec.initialContext } : {}),
    ...(spec.rate === undefined ? {} : { overallRate: spec.rate }),
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const base = baseOptions(spec);
  if (spec.warmup > 0) await once({ ...base, duration: spec.warmup });

  const samples = new Samples();
  const statuses: Record<string, number> = {};
  let timer: NodeJS.Timeout | undefined;
  await spec.onMeasureStart?.();
  if (spec.onTick) {
    const started = Date.now();
    const tick = spec.onTick;
    timer = setInterval(() => tick.run(Date.now() - started), tick.everyMs);
  }
  const cpu = cpuMeter(spec.cpuOf);
  let result: autocannon.Result;
  try {
    result = await once({ ...base, duration: spec.duration }, (status, ms) => {
      samples.push(ms);
      const k = String(status);
      statuses[k] = (statuses[k] ?? 0) + 1;
    });
  } finally {
    if (timer) clearInterval(timer);
  }
  return loadResult(spec, result.duration, samples, statuses, result.errors, cpu(samples.count));
}

/**
 * Several closed-loop runs compared on a noisy host, as runOpenLoops does for open loops: after
 * each one's warm-up, the measured time of each is cut into `rounds` slices run in turn (a, b, a,
 * b, …; whole seconds each), and responses, latencies and CPU are summed over each one's slices. The host's speed moves
 * by 10-20% over tens of seconds here, so two runs one after the other compare two moments as much
 * as two servers; in turns, a slow spell falls on both. (`onMeasureStart` and `onTick` are not
 * taken: they belong to single runs.)
 */
export async function runLoads(specs: LoadSpec[], rounds: number): Promise<LoadResult[]> {
  for (const spec of specs) if (spec.warmup > 0) await once({ ...baseOptions(spec), duration: spec.warmup });
  const tallies = specs.map(() => ({
    samples: new Samples(),
    statuses: {} as Record<string, number>,
    errors: 0,
    seconds: 0,
    cpu: new CpuTally(),
    sliceRps: [] as number[],
  }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, spec] of specs.entries()) {
      const tally = tallies[i]!;
      const before = tally.samples.count;
      const meter = cpuMeter(spec.cpuOf);
      const result = await once(
        { ...baseOptions(spec), duration: sliceSeconds(spec.duration, rounds) },
        (status, ms) => {
          tally.samples.push(ms);
          const k = String(status);
          tally.statuses[k] = (tally.statuses[k] ?? 0) + 1;
        },
      );
      const responses = tally.samples.count - before;
      tally.seconds += result.duration;
      tally.sliceRps.push(responses / result.duration);
      tally.errors += result.errors;
      tally.cpu.add(meter(responses), responses);
    }
  }
  return specs.map((spec, i) => {
    const { samples, statuses, errors, seconds, cpu, sliceRps } = tallies[i]!;
    return {
      ...loadResult(spec, seconds, samples, statuses, errors, cpu.perResponse(samples.count)),
      sliceRps,
    };
  });
}

/** Seconds of one slice of runLoads: autocannon ends a run on its one-second tick, so whole seconds. */
export function sliceSeconds(duration: number, rounds: number): number {
  return Math.max(1, Math.round(duration / rounds));
}

/** The figures of one measured run, whichever generator drove it. */
export function loadResult(
  spec: { name: string; connections: number },
  seconds: number,
  samples: Samples,
  statuses: Record<string, number>,
  errors: number,
  cpu?: CpuPerResponse,
): LoadResult {
  const sorted = samples.sorted();
  let non2xx = 0;
  for (const [code, n] of Object.entries(statuses)) if (!code.startsWith("2")) non2xx += n;
  return {
    name: spec.name,
    connections: spec.connections,
    seconds,
    responses: samples.count,
    rps: samples.count / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    statuses,
    non2xx,
    errors,
    ...(cpu ? { cpu } : {}),
  };
}
