/** The generated OpenAPI document validates against the official OpenAPI 3.1 schema. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { registry } from "../src/capabilities/registry.ts";
import { buildOpenApi } from "../src/http/openapi.ts";

test("the OpenAPI document is valid OpenAPI 3.1", async () => {
  const validator = new Validator();
  const result = await validator.validate(buildOpenApi(registry));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(validator.version, "3.1");
});

test("every capability has an execute path whose body schema is its request schema, with inspect's examples", () => {
  const doc = buildOpenApi(registry) as {
    paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: unknown; examples?: Record<string, { summary: string; value: unknown }> }> } } }>;
  };
  for (const cap of Object.values(registry)) {
    const op = doc.paths[`/v1/capabilities/${cap.id}/execute`]?.post;
    assert.ok(op, cap.id);
    const json = op.requestBody.content["application/json"]!;
    assert.deepEqual(json.schema, cap.publishedSchema);
    assert.deepEqual(
      Object.values(json.examples ?? {}).map((e) => ({ title: e.summary, body: e.value })),
      cap.examples,
    );
  }
});

test("Sharpen's documented errors are those it can answer: no provider_timeout or provider_error", () => {
  const doc = buildOpenApi(registry) as { paths: Record<string, { post?: { responses: Record<string, { description: string }> } }> };
  const responses = doc.paths["/v1/sharpen"]!.post!.responses;
  // Reviewers failing or running out of time are sharpen_no_reviewer (503), docs/errors.md.
  assert.equal(responses["504"], undefined);
  assert.equal(responses["502"], undefined);
  assert.match(responses["503"]!.description, /sharpen_no_reviewer/);
});

test("every path and method the document lists is served (OAuth and dashboard routes included)", async () => {
  const { startHarness } = await import("./helpers/harness.ts");
  const h = await startHarness();
  try {
    const doc = buildOpenApi(registry) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        const url = path.replace(/\{\w+\}/g, "x");
        assert.ok(h.app.findRoute({ method: method.toUpperCase() as "GET", url }) !== null, `${method.toUpperCase()} ${path} is served`);
      }
    }
    for (const path of ["/oauth/register", "/oauth/token", "/oauth/revoke", "/.well-known/oauth-authorization-server", "/dashboard/keys", "/dashboard/sign-in"]) {
      assert.ok(doc.paths[path], `${path} is documented`);
    }
  } finally {
    await h.close();
  }
});

test("the OAuth registration body is the schema registrations are checked with", async () => {
  const { ClientRegistrationSchema } = await import("../src/people/oauth-schemas.ts");
  const doc = buildOpenApi(registry) as { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }> };
  assert.deepEqual(doc.paths["/oauth/register"]!.post.requestBody.content["application/json"]!.schema, JSON.parse(JSON.stringify(ClientRegistrationSchema)));
});
