/**
 * The offline demo works as a newcomer would run it: `scripts/demo.ts --check` on a free port
 * answers every registered capability and its follow-ups (`more` where recordings page, record
 * actions, `update` wherever offered) from recorded data and exits 0.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { registry } from "../src/capabilities/registry.ts";

test("npm run demo -- --check answers every capability from recorded data and exits 0", async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0" };
  // The demo removes these itself; unset them here too so the test never depends on that.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.DEMO_DATA_DIR;
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts", "--check"], { env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (exitCode) => resolve({ code: exitCode, output }));
  });

  assert.equal(code, 0, `demo --check failed:\n${output}`);
  for (const [id, cap] of Object.entries(registry)) {
    assert.ok(output.includes(`${id} execute`), `the check output names ${id}:\n${output}`);
    assert.equal(cap.updateExample !== undefined, cap.offersUpdate, `${id}: an update example exactly when update is offered`);
    if (cap.offersUpdate) assert.match(output, new RegExp(`^ok +POST ${id.replace(".", "\\.")} follow-up update`, "m"));
    if (cap.paging === "offset") assert.match(output, new RegExp(`^ok +POST ${id.replace(".", "\\.")} follow-up more`, "m"));
  }
  assert.match(output, /recorded/i);
  assert.match(output, /^Quarry demo running at http:\/\/127\.0\.0\.1:\d+$/m);
  assert.doesNotMatch(output, /^FAIL/m);
  assert.match(output, /All \d+ demo calls succeeded/);
});
