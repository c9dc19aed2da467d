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
