/**
 * bench/loop-watch.ts: folding tick intervals into the longest block, the most the thread ran in
 * one block and the run-queue wait share; and a live watch of this thread where /proc has schedstat.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { BlockTally, watchLoop } from "../bench/loop-watch.ts";

test("BlockTally keeps the longest interval (less one tick), the interval that ran most, and the wait share", () => {
  const tally = new BlockTally(5);
  tally.add({ wallMs: 5, runMs: 1, waitMs: 0 });
  // A block that was mostly waiting for a core...
  tally.add({ wallMs: 40, runMs: 8, waitMs: 31 });
  // ...and a shorter one that was all the thread's own work.
  tally.add({ wallMs: 18, runMs: 17, waitMs: 0 });
  tally.add({ wallMs: 5, runMs: 0.5, waitMs: 2 });
  const r = tally.result();
  assert.equal(r.intervals, 4);
  assert.deepEqual(r.longest, { wallMs: 40, runMs: 8, waitMs: 31, blockMs: 35 });
  assert.deepEqual(r.mostRun, { wallMs: 18, runMs: 17, waitMs: 0 });
  assert.equal(r.waitShare, 33 / 68);
});

test("BlockTally without schedstat still times blocks, and says run and wait are unknown", () => {
  const tally = new BlockTally(5);
  tally.add({ wallMs: 6, runMs: 2, waitMs: 0 });
  tally.add({ wallMs: 30, runMs: null, waitMs: null });
  const r = tally.result();
  assert.equal(r.longest.blockMs, 25);
  assert.equal(r.longest.runMs, null);
  assert.equal(r.mostRun, null);
  assert.equal(r.waitShare, null);
});

test("BlockTally with no intervals reports nothing blocked", () => {
  const r = new BlockTally(5).result();
  assert.equal(r.intervals, 0);
  assert.equal(r.longest.blockMs, 0);
  assert.equal(r.mostRun, null);
  assert.equal(r.waitShare, null);
});

test("watchLoop sees a block this thread makes, and where schedstat exists, that it ran through it", async () => {
  const watch = watchLoop(5);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const until = performance.now() + 60;
  while (performance.now() < until) {
    // Busy: the loop is blocked for 60 ms by this thread's own work.
  }
  await new Promise((resolve) => setTimeout(resolve, 30));
  const r = watch.stop();
  assert.ok(r.intervals >= 3, `${r.intervals} intervals`);
  assert.ok(r.longest.blockMs >= 50, `longest block ${r.longest.blockMs} ms`);
  if (existsSync(`/proc/self/task/${process.pid}/schedstat`)) {
    // Busy, the thread was runnable throughout: running, or waiting for a core when the host's other
    // work had both. The kernel accounts in scheduler ticks (4 ms here), so allow for a few.
    const { runMs, waitMs, blockMs } = r.longest;
    assert.ok(runMs !== null && waitMs !== null && runMs + waitMs >= blockMs / 2, `ran ${runMs} ms, waited ${waitMs} ms of ${blockMs} ms`);
    assert.ok(r.mostRun !== null && (r.mostRun.runMs ?? 0) > 0, "r.mostRun !== null && (r.mostRun.runMs ?? 0) > 0");
    assert.ok(r.waitShare !== null && r.waitShare >= 0 && r.waitShare < 1, "r.waitShare !== null && r.waitShare >= 0 && r.waitShare < 1");
  } else {
    assert.equal(r.mostRun, null);
  }
});
