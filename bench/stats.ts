/**
 * Small statistics for the bench: exact percentiles over recorded latencies, a growable sample
 * buffer, and the least-squares slope of RSS samples.
 */

/** Latencies in milliseconds, appended without reallocating on every push. */
export class Samples {
  private data = new Float64Array(1 << 16);
  private size = 0;

  push(value: number): void {
    if (this.size === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = value;
  }

  get count(): number {
    return this.size;
  }

  /** A sorted copy of the samples. */
  sorted(): Float64Array {
    return this.data.slice(0, this.size).sort();
  }

  /** A sorted copy of the samples pushed from index `from` on. */
  sortedFrom(from: number): Float64Array {
    return this.data.slice(from, this.size).sort();
  }
}

/** Nearest-rank percentile (p in 0..100) of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export function mean(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] ?? 0;
  return sum / values.length;
}

/** Slope of the least-squares line through (x, y) points; NaN with fewer than two points. */
export function slope(points: { x: number; y: number }[]): number {
  if (points.length < 2) return Number.NaN;
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

/** One side of a saturated pair: its latency quantiles (ms). */
export interface SaturatedSide {
  p50: number;
  p99: number;
}

/** A side's tail shape: p99 over p50. */
export function tailShape(side: SaturatedSide): number {
  return side.p99 / side.p50;
}

/**
 * What "added p99 ≤ `limitMs`" would take at saturation, on this host, from the two sides' own
 * figures (docs/performance.md, "Where the saturated added p99 comes from"). With the same number
 * of requests in flight each side's latency scales with 1 / its rate (Little's law), so:
 * - at the bare route's tail shape (p99/p50), execute's p99 is bare's × bare/execute, and it
 *   passes once execute/bare ≥ bare p99 / (bare p99 + limit): `ratio`;
 * - at execute's measured throughput (its p50 as measured), it passes once its own p99/p50 is at
 *   most (bare p99 + limit) / execute p50: `tailShape`, to compare with the bare route's.
 */
export function saturatedNeeds(bare: SaturatedSide, execute: SaturatedSide, limitMs: number) {
  return {
    ratio: bare.p99 / (bare.p99 + limitMs),
    tailShape: (bare.p99 + limitMs) / execute.p50,
  };
}
