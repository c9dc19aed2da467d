/**
 * The bench's CPU-per-response figures (bench/cpu.ts): parsing /proc stat lines, the per-response
 * arithmetic, and a live snapshot of this process where /proc exists.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { type CpuSnapshot, CpuTally, cpuMeter, cpuPerResponse, cpuSnapshot, threadTicks } from "../bench/cpu.ts";

test("threadTicks reads utime + stime after a command name holding spaces and parentheses", () => {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  const line = "4242 (node (worker) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 567 0 0 20 0 11 0";
  assert.equal(threadTicks(line), 1234 + 567);
});

test("cpuPerResponse divides each part's growth by the responses, new threads counted from zero", () => {
  const before: CpuSnapshot = { main: 1_000_000, others: new Map([["11", 200_000]]), driver: 50_000 };
  const after: CpuSnapshot = {
    main: 2_000_000,
    others: new Map([
      ["11", 300_000],
      ["12", 100_000], // started during the run
    ]),
    driver: 150_000,
  };
  assert.deepEqual(cpuPerResponse(before, after, 10_000), { main: 100, others: 20, driver: 10 });
  assert.equal(cpuPerResponse(null, after, 10), undefined);
  assert.equal(cpuPerResponse(before, after, 0), undefined);
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
  assert.ok(x > 0);
  assert.ok(second.main >= first.main + 10_000, `main thread grew by ${second.main - first.main} µs`);
  assert.ok(second.driver > first.driver);
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
  tally.add({ main: 100, others: 10, driver: 1 }, 3);
  tally.add({ main: 200, others: 30, driver: 5 }, 1);
  assert.deepEqual(tally.perResponse(4), { main: 125, others: 15, driver: 2 });
  assert.equal(tally.perResponse(0), undefined, "no responses: nothing to divide");
  tally.add(undefined, 2);
  assert.equal(tally.perResponse(6), undefined);
});
