/**
 * CPU time spent per response during a measured run, by where it was spent: the server process's
 * event-loop thread, its other threads (the embedded store's writer and checkpoint threads, V8's
 * GC helpers), and this driver process (autocannon or the open-loop generator). Read from
 * /proc/<pid>/task/<tid>/stat, so Linux only; elsewhere the figures are left out.
 *
 * Why: the throughput ratio alone does not say whether the gateway is slower because its event
 * loop does more per request, because other threads compete with it for the cores, or because it
 * waits (loop not saturated). These three figures, next to req/s, tell which. The loop's wall time
 * is also split three ways from /proc/<pid>/task/<pid>/schedstat: running, runnable but waiting for
 * a core (the other threads and the load generator took both), and idle (nothing to do: every
 * request in flight was waiting elsewhere, e.g. on the store's writer thread).
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";

/** Linux reports thread times in clock ticks of 1/100 s (USER_HZ, fixed at 100 on every Linux ABI). */
const TICK_US = 10_000;

export interface CpuSnapshot {
  /** Server event-loop thread (tid = pid), µs. */
  main: number;
  /** Every other thread of the server process, µs (threads that exited meanwhile are not counted). */
  others: Map<string, number>;
  /** This process, µs. */
  driver: number;
  /** The event-loop thread's scheduler times (schedstat), ns; null where the kernel has none. */
  loopSched: { run: number; wait: number } | null;
  /** Monotonic time of the snapshot, ns. */
  at: number;
}

/** Shares of the event-loop thread's wall time over a run (each 0–1, summing to 1). */
export interface LoopShares {
  run: number;
  /** Runnable, waiting for a core. */
  wait: number;
  /** Neither: the loop had nothing to do. */
  idle: number;
}

/** µs of CPU per response in one measured run. */
export interface CpuPerResponse {
  main: number;
  others: number;
  driver: number;
  /** How the loop spent the run's wall time, with the wall time it covers (µs, for weighting). */
  loop?: LoopShares & { wallUs: number };
}

export function threadTicks(statText: string): number {
  // Fields after "(comm) ": state is field 3 of stat(5); utime and stime are fields 14 and 15.
  const fields = statText.slice(statText.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** schedstat(5): time on the CPU and time waiting on a run queue, both ns. */
export function schedTimes(text: string): { run: number; wait: number } | null {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  return Number.isFinite(run) && Number.isFinite(wait) ? { run: run!, wait: wait! } : null;
}

function readSched(pid: number): { run: number; wait: number } | null {
  try {
    return schedTimes(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8"));
  } catch {
    return null;
  }
}

/** A snapshot of `pid`'s thread times and this process's, or null where /proc is not there. */
export function cpuSnapshot(pid: number): CpuSnapshot | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let main = 0;
  const others = new Map<string, number>();
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const us = threadTicks(text) * TICK_US;
    if (tid === String(pid)) main = us;
    else others.set(tid, us);
  }
  const self = process.cpuUsage();
  return { main, others, driver: self.user + self.system, loopSched: readSched(pid), at: Number(process.hrtime.bigint()) };
}

export function cpuPerResponse(
  before: CpuSnapshot | null,
  after: CpuSnapshot | null,
  responses: number,
): CpuPerResponse | undefined {
  if (!before || !after || responses <= 0) return undefined;
  let others = 0;
  for (const [tid, us] of after.others) others += us - (before.others.get(tid) ?? 0);
  const used: CpuPerResponse = {
    main: (after.main - before.main) / responses,
    others: others / responses,
    driver: (after.driver - before.driver) / responses,
  };
  const wall = after.at - before.at;
  if (before.loopSched && after.loopSched && wall > 0) {
    const run = Math.min(1, (after.loopSched.run - before.loopSched.run) / wall);
    const wait = Math.min(1 - run, (after.loopSched.wait - before.loopSched.wait) / wall);
    used.loop = { run, wait, idle: 1 - run - wait, wallUs: wall / 1000 };
  }
  return used;
}

/**
 * CPU per response over several measured slices of one side: each slice's per-response figures
 * weighted by its responses. Unknown as a whole once any slice could not be measured.
 */
export class CpuTally {
  private main = 0;
  private others = 0;
  private driver = 0;
  private measured = true;
  /** Loop shares weighted by wall time; null once a slice had none. */
  private loop: { run: number; wait: number; wallUs: number } | null = { run: 0, wait: 0, wallUs: 0 };

  add(used: CpuPerResponse | undefined, responses: number): void {
    if (!used) {
      this.measured = false;
      return;
    }
    this.main += used.main * responses;
    this.others += used.others * responses;
    this.driver += used.driver * responses;
    if (!used.loop) this.loop = null;
    else if (this.loop) {
      this.loop.run += used.loop.run * used.loop.wallUs;
      this.loop.wait += used.loop.wait * used.loop.wallUs;
      this.loop.wallUs += used.loop.wallUs;
    }
  }

  perResponse(responses: number): CpuPerResponse | undefined {
    if (!this.measured || responses <= 0) return undefined;
    const used: CpuPerResponse = { main: this.main / responses, others: this.others / responses, driver: this.driver / responses };
    if (this.loop && this.loop.wallUs > 0) {
      const { run, wait, wallUs } = this.loop;
      used.loop = { run: run / wallUs, wait: wait / wallUs, idle: 1 - (run + wait) / wallUs, wallUs };
    }
    return used;
  }
}

/**
 * Start measuring `pid` (nothing when undefined); the returned function ends the measurement and
 * gives the CPU per response over it, or undefined where it cannot be measured.
 */
export function cpuMeter(pid: number | undefined): (responses: number) => CpuPerResponse | undefined {
  if (pid === undefined) return () => undefined;
  const before = cpuSnapshot(pid);
  return (responses) => cpuPerResponse(before, cpuSnapshot(pid), responses);
}

/** The host's CPU time so far, busy and in all, over every core (ms), from `os.cpus()`. */
function hostTimes(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const total = times.user + times.nice + times.sys + times.idle + times.irq;
    all += total;
    busy += total - times.idle;
  }
  return { busy, all };
}

/** Start measuring how busy the host's cores are; the returned function gives the busy share (0–1) since. */
export function hostBusyMeter(): () => number {
  const before = hostTimes();
  return () => {
    const after = hostTimes();
    const all = after.all - before.all;
    return all > 0 ? (after.busy - before.busy) / all : 0;
  };
}
