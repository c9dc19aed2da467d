/** Pacer on its own: arrival order, the deadline refusal, aborts while waiting, the early-timer guard. */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { ClientGone } from "../errors.ts";
import { describeRate, Pacer, TooLateForTurn } from "./pacing.ts";

const never = new AbortController().signal;

test("starts are at least the interval apart, in arrival order", async () => {
  const pacer = new Pacer(60);
  const starts: [number, number][] = [];
  const before = performance.now();
  await Promise.all(
    [0, 1, 2, 3].map((i) => pacer.take(never, undefined).then((at) => starts.push([i, at]))),
  );
  assert.deepEqual(
    starts.map(([i]) => i),
    [0, 1, 2, 3],
  );
  // The start times the pacer gave (its clock, no tolerance needed); each is real: not in the future.
  assert.ok(starts[0]![1] >= before, "starts[0]![1] >= before");
  for (let i = 1; i < starts.length; i++) {
    const gap = starts[i]![1] - starts[i - 1]![1];
    assert.ok(gap >= 60, `start ${i} came ${gap} ms after the one before`);
  }
  assert.ok(starts.at(-1)![1] <= performance.now(), "starts.at(-1)![1] <= performance.now()");
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
});

test("a turn at or after the deadline is refused at once and takes no place in the queue", async () => {
  const pacer = new Pacer(1000);
  await pacer.take(never, undefined);
  const now = performance.now();
  const err = await pacer.take(never, now + 500).catch((e: unknown) => e);
  assert.ok(err instanceof TooLateForTurn, "err instanceof TooLateForTurn");
  assert.ok(err.waitMs > 900 && err.waitMs <= 1000, String(err.waitMs));
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
  // A deadline past the turn waits; abort it so the test does not.
  const controller = new AbortController();
  const waiting = pacer.take(controller.signal, now + 5000);
  assert.deepEqual(pacer.state(), { waiting: 1, timer: true });
  controller.abort(new Error("gone"));
  await assert.rejects(waiting, /gone/);
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
  assert.equal(getEventListeners(controller.signal, "abort").length, 0);
});

test("an already aborted signal is refused without queueing", async () => {
  const pacer = new Pacer(1000);
  await pacer.take(never, undefined);
  await assert.rejects(pacer.take(AbortSignal.abort(new Error("late")), undefined), /late/);
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
});

test("an aborted head lets the next one start on the head's turn", async () => {
  let now = 0; // a fake clock: the timers are real (30 ms), the turns are counted on this one
  const pacer = new Pacer(30, () => now);
  assert.equal(await pacer.take(never, undefined), 0);
  const head = new AbortController();
  const first = pacer.take(head.signal, undefined);
  const second = pacer.take(never, undefined);
  head.abort(new Error("gone"));
  await assert.rejects(first, /gone/);
  assert.deepEqual(pacer.state(), { waiting: 1, timer: true });
  now = 30;
  // Had the aborted head kept its turn, the second's would be at 60, which this clock never reaches.
  assert.equal(await second, 30);
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
});

test("a timer that fires early does not start anyone early", async () => {
  let now = 0;
  const pacer = new Pacer(50, () => now);
  await pacer.take(never, undefined); // lastStart = 0
  let started = false;
  const waiting = pacer.take(never, undefined).then(() => {
    started = true;
  });
  now = 49.5; // the timer fires, but the fake clock says half a millisecond is left
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(started, false);
  assert.deepEqual(pacer.state(), { waiting: 1, timer: true });
  now = 50;
  await waiting;
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
});

test("the rate in words", () => {
  assert.equal(describeRate(1000), "about one request a second");
  assert.equal(describeRate(100), "about 10 requests a second");
  assert.equal(describeRate(2000), "about one request every 2 s");
});

test("a waiter whose caller has gone gives up its turn: dropped on the next arrival or at its turn", async () => {
  const pacer = new Pacer(50);
  await pacer.take(never, undefined); // the free turn
  let firstGone = false;
  let secondGone = false;
  const first = pacer.take(never, undefined, () => firstGone).catch((e: unknown) => e);
  const second = pacer.take(never, undefined, () => secondGone).catch((e: unknown) => e);
  assert.equal(pacer.state().waiting, 2);
  // Gone before its turn: the turn passes to the one behind it, at the time the first would have had.
  firstGone = true;
  const secondAt = await second;
  assert.ok((await first) instanceof ClientGone, "(await first) instanceof ClientGone");
  assert.equal(typeof secondAt, "number");
  // A newcomer's turn is counted without the waiters that have gone (here: dropped on arrival).
  const third = pacer.take(never, undefined, () => secondGone).catch((e: unknown) => e);
  secondGone = true;
  const now = performance.now();
  const err = await pacer.take(never, now + 60, () => false).catch((e: unknown) => e);
  assert.ok((await third) instanceof ClientGone, "dropped when the newcomer arrived");
  assert.equal(typeof err, "number", "the newcomer's turn fits its deadline: the gone waiter does not count");
  assert.deepEqual(pacer.state(), { waiting: 0, timer: false });
});
