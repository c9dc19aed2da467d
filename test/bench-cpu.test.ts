/**
 * The bench's CPU-per-response figures (bench/cpu.ts): parsing /proc stat lines, the per-response
 * arithmetic, and a live snapshot of this process where /proc exists.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { type CpuSnapshot, CpuTally, cpuMeter, cpuPerResponse, cpuSnapshot, schedTimes, threadTicks } from "../bench/cpu.ts";

test("threadTicks reads utime + stime after a command name holding spaces and parentheses", () => {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  const line = "4242 (node (worker) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 567 0 0 20 0 11 0";
  assert.equal(threadTicks(line), 1234 + 567);
});

test("schedTimes reads run and run-queue wait (ns) from a schedstat line; junk gives null", () => {
  assert.deepEqual(schedTimes("123456789 2345678 901\n"), { run: 123_456_789, wait: 2_345_678 });
  assert.equal(schedTimes(""), null);
  assert.equal(schedTimes("x y z"), null);
});

test("cpuPerResponse divides each part's growth by the responses, new threads counted from zero", () => {
  const before: CpuSnapshot = {
    main: 1_000_000,
    others: new Map([["11", 200_000]]),
    driver: 50_000,
    loopSched: { run: 5e9, wait: 1e9 },
    at: 100e9,
  };
  const after: CpuSnapshot = {
    main: 2_000_000,
    others: new Map([
      ["11", 300_000],
      ["12", 100_000], // started during the run
    ]),
    driver: 150_000,
    // 2 s of wall time: 1.8 s running, 0.1 s waiting for a core, so 0.1 s idle.
    loopSched: { run: 6.8e9, wait: 1.1e9 },
    at: 102e9,
  };
  const used = cpuPerResponse(before, after, 10_000)!;
  assert.deepEqual({ main: used.main, others: used.others, driver: used.driver }, { main: 100, others: 20, driver: 10 });
  assert.ok(used.loop, "used.loop");
  assert.equal(used.loop.wallUs, 2e6);
  assert.ok(Math.abs(used.loop.run - 0.9) < 1e-9 && Math.abs(used.loop.wait - 0.05) < 1e-9, JSON.stringify(used.loop));
  assert.ok(Math.abs(used.loop.idle - 0.05) < 1e-9, "Math.abs(used.loop.idle - 0.05) < 1e-9");
  assert.equal(cpuPerResponse(null, after, 10), undefined);
  assert.equal(cpuPerResponse(before, after, 0), undefined);
  const noSched = cpuPerResponse({ ...before, loopSched: null }, after, 10_000)!;
  assert.equal(noSched.loop, undefined, "no schedstat: no split, the CPU figures still there");
  assert.equal(noSched.main, 100);
});

test("cpuSnapshot of this process sees its main thread and grows with work", {
  skip: !existsSync("/proc/self/task") && "no /proc here",
}, () => {
  const first = cpuSnapshot(process.pid);
  assert.ok(first, "a snapshot on Linux");
  const until = Date.now() + 60;
  let x = 0;
  while (Date.now() < until) x += Math.sqrt(x + 1);
  const second = cpuSnapshot(process.pid)!;
  assert.ok(x > 0, "x > 0");
  assert.ok(second.main >= first.main + 10_000, `main thread grew by ${second.main - first.main} µs`);
  assert.ok(second.driver > first.driver, "second.driver > first.driver");
  assert.ok(second.at > first.at, "second.at > first.at");
  if (first.loopSched && second.loopSched) {
    assert.ok(second.loopSched.run - first.loopSched.run >= 10e6, "the spin shows as time on the CPU");
  }
  assert.equal(cpuSnapshot(2 ** 22 + 12345), null, "a pid that does not exist");
  const finish = cpuMeter(process.pid);
  const spinUntil = Date.now() + 30;
  while (Date.now() < spinUntil) x += Math.sqrt(x + 1);
  const perResponse = finish(10)!;
  assert.ok(perResponse.main >= 0 && perResponse.driver > 0, JSON.stringify(perResponse));
  assert.equal(cpuMeter(undefined)(10), undefined, "no process to measure");
});

test("CpuTally weights each slice's figures by its responses; one unmeasured slice leaves the whole unknown", () => {
  const tally = new CpuTally();
  tally.add({ main: 100, others: 10, driver: 1, loop: { run: 0.9, wait: 0.1, idle: 0, wallUs: 3e6 } }, 3);
  tally.add({ main: 200, others: 30, driver: 5, loop: { run: 0.5, wait: 0, idle: 0.5, wallUs: 1e6 } }, 1);
  const pooled = tally.perResponse(4)!;
  assert.deepEqual({ main: pooled.main, others: pooled.others, driver: pooled.driver }, { main: 125, others: 15, driver: 2 });
  // Loop shares weighted by wall time (3 s and 1 s), not by responses.
  assert.ok(pooled.loop, "pooled.loop");
  assert.ok(Math.abs(pooled.loop.run - 0.8) < 1e-9 && Math.abs(pooled.loop.wait - 0.075) < 1e-9, JSON.stringify(pooled.loop));
  assert.ok(Math.abs(pooled.loop.idle - 0.125) < 1e-9, "Math.abs(pooled.loop.idle - 0.125) < 1e-9");
  assert.equal(pooled.loop.wallUs, 4e6);
  assert.equal(tally.perResponse(0), undefined, "no responses: nothing to divide");
  tally.add(undefined, 2);
  assert.equal(tally.perResponse(6), undefined);

  const partial = new CpuTally();
  partial.add({ main: 100, others: 10, driver: 1, loop: { run: 1, wait: 0, idle: 0, wallUs: 1e6 } }, 1);
  partial.add({ main: 100, others: 10, driver: 1 }, 1);
  const noSplit = partial.perResponse(2)!;
  assert.equal(noSplit.main, 100);
  assert.equal(noSplit.loop, undefined, "one slice without a split leaves the split unknown");
});
