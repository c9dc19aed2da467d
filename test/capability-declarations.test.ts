/**
 * Every capability, as declared, agrees with what inspect and the OpenAPI document publish: its
 * registry key is its id; inspect's body schema is the published schema (with the rules JSON Schema
 * can say, and every rule's sentence); its cost (typical credits, basis) and record actions are the
 * declared ones; its OpenAPI record component holds exactly its record keys; every example is a
 * valid body that passes the rules; `update` has its example exactly when offered.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { capabilities, registry } from "../src/capabilities/registry.ts";
import { recordComponent } from "../src/http/openapi.ts";
import { violationsOf } from "./helpers/capability-kit.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
let key: string;

before(async () => {
  h = await startHarness();
  ({ key } = await h.account("pro"));
});
after(async () => {
  await h.close();
});

test("each registry key is its capability's id", () => {
  for (const [id, cap] of Object.entries(capabilities)) assert.equal(cap.id, id);
});

test("inspect and OpenAPI publish each capability as declared", async () => {
  const doc = (await h.call("GET", "/v1/openapi.public.json")).body;
  for (const cap of Object.values(registry)) {
    const inspect = (await h.call("GET", `/v1/capabilities/${cap.id}`, { key })).body;
    assert.deepEqual(inspect.execute.body_schema, cap.publishedSchema, cap.id);
    for (const text of cap.ruleTexts) assert.ok(String(cap.publishedSchema.description).includes(text), `${cap.id}: ${text}`);
    assert.deepEqual(inspect.cost, { typical_credits: cap.typicalCredits, basis: cap.costBasis }, cap.id);
    const recordActions = inspect.follow_ups.filter((f: { scope: string }) => f.scope === "record").map((f: { action: string }) => f.action);
    assert.deepEqual(recordActions, Object.keys(cap.actions), cap.id);
    assert.equal(inspect.follow_ups.some((f: { action: string }) => f.action === "update"), cap.offersUpdate, cap.id);
    assert.equal(cap.updateExample !== undefined, cap.offersUpdate, `${cap.id}: update example exactly when offered`);

    const op = doc.paths[`/v1/capabilities/${cap.id}/execute`].post;
    assert.deepEqual(op.requestBody.content["application/json"].schema, cap.publishedSchema, cap.id);
    const component = doc.components.schemas[recordComponent(cap.id)];
    const own = Object.keys(cap.recordKeys.properties);
    for (const k of own) assert.ok(k in component.properties, `${cap.id}: ${k} published`);
    const catalog = (await h.call("GET", "/v1/catalog", { key })).body.capabilities.find((c: { id: string }) => c.id === cap.id);
    assert.equal(catalog.typical_credits, cap.typicalCredits, cap.id);
  }
});

test("every example is a valid body that passes the rules, and its worst case is within a plan's reach", () => {
  for (const cap of Object.values(registry)) {
    assert.ok(cap.examples.length >= 1, cap.id);
    for (const example of cap.examples) {
      const body = structuredClone(example.body);
      assert.deepEqual(violationsOf(cap, body), [], `${cap.id}: ${example.title}`);
      assert.ok(cap.maxCredits(body) >= 0 && cap.maxCredits(body) <= 100, `${cap.id}: worst case ${cap.maxCredits(body)}`);
    }
  }
});
