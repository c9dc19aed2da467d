/**
 * CPU time spent per response during a measured run, by where it was spent: the server process's
 * event-loop thread, its other threads (the embedded store's writer and checkpoint threads, V8's
 * GC helpers), and this driver process (autocannon or the open-loop generator). Read from
 * /proc/<pid>/task/<tid>/stat, so Linux only; elsewhere the figures are left out.
 *
 * Why: the throughput ratio alone does not say whether the gateway is slower because its event
 * loop does more per request, because other threads compete with it for the cores, or because it
 * waits (loop not saturated). These three figures, next to req/s, tell which.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Linux reports thread times in clock ticks of 1/100 s (USER_HZ, fixed at 100 on every Linux ABI). */
const TICK_US = 10_000;

export interface CpuSnapshot {
  /** Server event-loop thread (tid = pid), µs. */
  main: number;
  /** Every other thread of the server process, µs (threads that exited meanwhile are not counted). */
  others: Map<string, number>;
  /** This process, µs. */
  driver: number;
}

/** µs of CPU per response in one measured run. */
export interface CpuPerResponse {
  main: number;
  others: number;
  driver: number;
}

export function threadTicks(statText: string): number {
  // Fields after "(comm) ": state is field 3 of stat(5); utime and stime are fields 14 and 15.
  const fields = statText.slice(statText.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
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
  return { main, others, driver: self.user + self.system };
}

export function cpuPerResponse(
  before: CpuSnapshot | null,
  after: CpuSnapshot | null,
  responses: number,
): CpuPerResponse | undefined {
  if (!before || !after || responses <= 0) return undefined;
  let others = 0;
  for (const [tid, us] of after.others) others += us - (before.others.get(tid) ?? 0);
  return {
    main: (after.main - before.main) / responses,
    others: others / responses,
    driver: (after.driver - before.driver) / responses,
  };
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

  add(used: CpuPerResponse | undefined, responses: number): void {
    if (!used) {
      this.measured = false;
      return;
    }
    this.main += used.main * responses;
    this.others += used.others * responses;
    this.driver += used.driver * responses;
  }

  perResponse(responses: number): CpuPerResponse | undefined {
    if (!this.measured || responses <= 0) return undefined;
    return { main: this.main / responses, others: this.others / responses, driver: this.driver / responses };
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
