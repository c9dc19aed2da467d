/**
 * The bench's sliced closed-loop runs (bench/load.ts, runLoads): the sides really take turns, and
 * each side's figures add up over its own slices only.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { runLoads } from "../bench/load.ts";

test("runLoads runs its specs in alternating slices and pools each one's responses", async () => {
  const served: string[] = [];
  const server = createServer((req, res) => {
    served.push(req.url!);
    req.resume();
    req.on("end", () => res.end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const common = { url, connections: 2, duration: 2, warmup: 0, cpuOf: process.pid };
    const [a, b] = await runLoads(
      [
        { name: "a", requests: [{ method: "POST", path: "/a", body: "{}" }], ...common },
        { name: "b", requests: [{ method: "POST", path: "/b", body: "{}" }], ...common },
      ],
      2,
    );
    // Runs of the same path in the order served: a, b, a, b.
    const turns = served.filter((path, i) => i === 0 || served[i - 1] !== path);
    assert.deepEqual(turns, ["/a", "/b", "/a", "/b"]);
    assert.equal(a!.name, "a");
    for (const r of [a!, b!]) {
      // Every response of its own path, and only those: at most one request per connection and
      // slice was still in flight when autocannon stopped (served, not counted).
      const own = served.filter((p) => p === `/${r.name}`).length;
      assert.ok(own - r.responses >= 0 && own - r.responses <= 2 * 2, `${r.name}: ${r.responses} of ${own}`);
      assert.ok(r.responses > 0, "r.responses > 0");
      assert.deepEqual(r.statuses, { "200": r.responses });
      // Two slices of 1 s each.
      assert.ok(r.seconds >= 1.9 && r.seconds < 3, `seconds ${r.seconds}`);
      assert.equal(r.rps, r.responses / r.seconds);
      assert.equal(r.sliceRps?.length, 2, "one rate per slice");
      assert.ok(r.sliceRps.every((rps) => rps > 0), "r.sliceRps.every((rps) => rps > 0)");
      if (process.platform === "linux") assert.ok(r.cpu && r.cpu.main > 0, JSON.stringify(r.cpu));
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
