/**
 * What this thread's event-loop blocks were made of: its own work, or waiting for a core.
 *
 * `monitorEventLoopDelay` says how late the loop was, not why. On a host whose cores are all busy
 * (the load generator, the extraction workers and the store's writer share them with the loop),
 * a late loop is often a runnable thread the scheduler has not run yet. This watch ticks every few
 * milliseconds and, for each interval, reads the thread's scheduler times from
 * /proc/self/task/<pid>/schedstat (bench/cpu.ts `schedTimes`): how long it ran and how long it sat
 * runnable on a run queue. A late tick's interval is a block; its run and wait times say which it
 * was. The interval includes up to one tick of ordinary work besides the block, so the split is an
 * upper bound on each side, good to a tick.
 *
 * Linux only: elsewhere (no schedstat) the blocks are still timed, with run and wait unknown.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { schedTimes } from "./cpu.ts";

/** One interval between two ticks: wall time, and the thread's time running and waiting for a core (all ms). */
export interface Interval {
  wallMs: number;
  /** null where the kernel gives no schedstat. */
  runMs: number | null;
  waitMs: number | null;
}

/** What a watch saw: the interval with the latest tick, and the most the thread ran within one interval. */
export interface LoopBlocks {
  /** Intervals seen. */
  intervals: number;
  /** The longest interval, less the tick it was meant to last: the longest block, as monitorEventLoopDelay measures it. */
  longest: Interval & { blockMs: number };
  /**
   * The most the thread ran (its own work: Quarry's code and its garbage collection) within one
   * interval, with that interval's wall time; null without schedstat.
   */
  mostRun: Interval | null;
  /** Run-queue wait over the whole watch, as a share of its wall time; null without schedstat. */
  waitShare: number | null;
}

/** Fold intervals into LoopBlocks (pure; `tickMs` is the interval the ticks were meant to have). */
export class BlockTally {
  private intervals = 0;
  private longest: Interval = { wallMs: 0, runMs: null, waitMs: null };
  private mostRun: Interval | null = null;
  private wall = 0;
  private wait = 0;
  private schedKnown = true;

  constructor(private readonly tickMs: number) {}

  add(interval: Interval): void {
    this.intervals += 1;
    this.wall += interval.wallMs;
    if (interval.wallMs > this.longest.wallMs) this.longest = interval;
    if (interval.runMs === null || interval.waitMs === null) {
      this.schedKnown = false;
      return;
    }
    this.wait += interval.waitMs;
    if (this.mostRun === null || interval.runMs > (this.mostRun.runMs ?? 0)) this.mostRun = interval;
  }

  result(): LoopBlocks {
    const known = this.schedKnown && this.intervals > 0;
    return {
      intervals: this.intervals,
      longest: { ...this.longest, blockMs: Math.max(0, this.longest.wallMs - this.tickMs) },
      mostRun: known ? this.mostRun : null,
      waitShare: known && this.wall > 0 ? this.wait / this.wall : null,
    };
  }
}

/** This thread's schedstat, read through one open descriptor (a tick must cost next to nothing). */
function schedReader(): { read(): { run: number; wait: number } | null; close(): void } {
  let fd: number | null = null;
  try {
    fd = openSync(`/proc/self/task/${process.pid}/schedstat`, "r");
  } catch {
    fd = null;
  }
  const buffer = Buffer.alloc(128);
  return {
    read() {
      if (fd === null) return null;
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      return schedTimes(buffer.toString("latin1", 0, n));
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** Watch this thread's loop, a tick every `tickMs`, until `stop()`, which gives what it saw. */
export function watchLoop(tickMs = 5): { stop(): LoopBlocks } {
  const sched = schedReader();
  const tally = new BlockTally(tickMs);
  let lastAt = performance.now();
  let lastSched = sched.read();
  const timer = setInterval(() => {
    const at = performance.now();
    const now = sched.read();
    const known = now !== null && lastSched !== null;
    tally.add({
      wallMs: at - lastAt,
      runMs: known ? (now.run - lastSched!.run) / 1e6 : null,
      waitMs: known ? (now.wait - lastSched!.wait) / 1e6 : null,
    });
    lastAt = at;
    lastSched = now;
  }, tickMs);
  return {
    stop() {
      clearInterval(timer);
      sched.close();
      return tally.result();
    },
  };
}
