/** DeadlineSignals: which calls share a signal, and that none is aborted before its own deadline. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DeadlineSignals, deadlineOf } from "./deadlines.ts";

/** When the signal aborts. Its timer is unref'd (it must not hold a server open), so this holds the test's loop. */
function abortedAt(signal: AbortSignal): Promise<number> {
  const keepAlive = setInterval(() => undefined, 1000);
  return new Promise((resolve) =>
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(keepAlive);
        resolve(performance.now());
      },
      { once: true },
    ),
  );
}

test("calls within one window share a signal; a later call or another deadline gets its own", () => {
  let now = 1000;
  const deadlines = new DeadlineSignals(10, () => now);
  const first = deadlines.signal(60_000);
  now += 9.9;
  assert.equal(deadlines.signal(60_000), first, "joined within the window");
  assert.notEqual(deadlines.signal(40_000), first, "another deadline, another signal");
  now += 0.1;
  const second = deadlines.signal(60_000);
  assert.notEqual(second, first, "the window closed at 10 ms");
  assert.equal(first.aborted, false);
  assert.equal(second.aborted, false);
});

test("every call of a window gets at least its full deadline, at most the window more", async () => {
  // A window far longer than the wait, so the late call joins the first one's window.
  const deadlines = new DeadlineSignals(100);
  const firstStart = performance.now();
  const first = deadlines.signal(30);
  await new Promise((resolve) => setTimeout(resolve, 15));
  const lateStart = performance.now();
  const late = deadlines.signal(30);
  assert.equal(late, first, "joined the first call's window");
  const at = await abortedAt(late);
  assert.ok(at - lateStart >= 30 - 1, `aborted ${(at - lateStart).toFixed(1)} ms after the late call started`);
  assert.ok(at - firstStart >= 30 + 100 - 1, "the timer runs the window past the first call's deadline");
  assert.equal((late.reason as Error).message, "deadline");
});

test("many calls waiting on one signal raise no listener-leak warning", async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const deadlines = new DeadlineSignals(1000);
    const listeners = Array.from({ length: 50 }, () => () => undefined);
    const signal = deadlines.signal(60_000);
    for (const listener of listeners) deadlines.signal(60_000).addEventListener("abort", listener, { once: true });
    for (const listener of listeners) signal.removeEventListener("abort", listener);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  } finally {
    process.off("warning", onWarning);
  }
});

test("deadlineOf tells when a deadline signal aborts (on the real clock); other signals have none", () => {
  const deadlines = new DeadlineSignals(10, () => 0); // a fake window clock does not move the real deadline
  const before = performance.now();
  const signal = deadlines.signal(60_000);
  const at = deadlineOf(signal);
  assert.ok(at !== undefined && at >= before + 60_010 && at <= performance.now() + 60_010, String(at));
  assert.equal(deadlineOf(new AbortController().signal), undefined);
});
