/**
 * The OpenAPI 3.1 document, generated from the same schemas that validate requests: each
 * capability gets its own execute path whose request body is exactly its inspect `body_schema`.
 */
import type { TSchema } from "@sinclair/typebox";
import type { Registry } from "../capabilities/registry.ts";
import { API_VERSION, CONTRACT_REVISION } from "../config.ts";
import { ERROR_CODES, type ErrorCode } from "../errors.ts";
import { FollowUpRequestSchema } from "../search/follow-up-schema.ts";
import { SharpenRequestSchema } from "../sharpen/schema.ts";
import { COMPONENTS, RecordSummary } from "../wire.ts";
import { DASHBOARD_FORMS, DASHBOARD_PAGES } from "../dashboard/forms.ts";
import { ClientRegistrationSchema, RevokeRequestSchema, TokenRequestSchema } from "../people/oauth-schemas.ts";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** Plain JSON of a TypeBox schema (drops TypeBox's symbol keys). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

function errorResponses(codes: ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const [status, list] of byStatus) {
    out[String(status)] = {
      description: list.join(", "),
      content: { "application/json": { schema: ref("ErrorEnvelope") } },
    };
  }
  return out;
}

const AUTH_ERRORS: ErrorCode[] = ["unauthorized", "rate_limited", "internal_error", "service_unavailable"];

/** Name of the component holding a capability's records: RecordSummary's keys and its own (spec 4.6). */
export const recordComponent = (capabilityId: string) => `RecordSummary.${capabilityId}`;

/**
 * RecordSummary with a capability's own keys: one object schema, extra keys still allowed. Spec 9:
 * "record keys published as documented components are optional and extra keys may appear", so only
 * RecordSummary's own `record_id` and `title` are required; a key the capability always sends says
 * so in its description (its own schema, `recordKeys`, still requires it: the record-keys test).
 */
function recordSchema(cap: Registry[string]): Json {
  const base = plain(RecordSummary) as { properties: Json; required: string[] };
  const own = plain(cap.recordKeys) as { properties: Record<string, Json>; required?: string[] };
  const always = new Set(own.required ?? []);
  const properties = Object.fromEntries(
    Object.entries(own.properties).map(([key, schema]) => {
      if (!always.has(key)) return [key, schema];
      const said = typeof schema.description === "string" ? `${schema.description} ` : "";
      return [key, { ...schema, description: `${said}Always present.` }];
    }),
  );
  return {
    type: "object",
    description: `A ${cap.id} record: RecordSummary's keys and the capability's own, each there when the source has a value (those marked "Always present." always are). Extra keys may appear.`,
    properties: { ...base.properties, ...properties },
    required: base.required,
    additionalProperties: true,
  };
}

/**
 * The MCP endpoint (spec 4.9) as HTTP sees it: JSON-RPC 2.0 over Streamable HTTP, stateless, JSON
 * answers. Its tools and their input schemas are published by MCP itself (`tools/list`).
 */
function mcpOperation(operationId: string, security: Json[]): Json {
  const jsonRpc = { oneOf: [{ type: "object" }, { type: "array", items: { type: "object" } }] };
  return {
    operationId,
    summary: "Model Context Protocol: tools discover, inspect, execute, follow_up, sharpen and account",
    description:
      "JSON-RPC 2.0 messages (or a batch) over MCP's Streamable HTTP transport, stateless, answered as JSON " +
      "(send `Accept: application/json, text/event-stream`). Tool results carry the same JSON as the REST " +
      "routes; a refused tool call is a result with `isError` and the error envelope. Each tools/call counts " +
      "against the key's rate limit like a REST call; other messages (initialize, tools/list, ping, notifications) " +
      "count against a protocol bound of their own (600 a minute). Transport refusals are JSON-RPC errors: 403 for " +
      "a Host or Origin that is not this server's (DNS-rebinding protection), 405, 406 and 415.",
    security,
    requestBody: { required: true, content: { "application/json": { schema: jsonRpc } } },
    responses: {
      "200": { description: "JSON-RPC response(s)", content: { "application/json": { schema: jsonRpc } } },
      "202": { description: "Only notifications or responses were sent: nothing to answer" },
      "400": { description: "Not JSON-RPC (a JSON-RPC error), or a missing or malformed Host (the error envelope)" },
      "401": { description: "unauthorized", content: { "application/json": { schema: ref("ErrorEnvelope") } } },
      "403": { description: "A Host or Origin that is not this server's own or allowed (a JSON-RPC error)" },
      "405": { description: "A method other than POST (a JSON-RPC error; Allow: POST)" },
      "406": { description: "Accept does not allow both application/json and text/event-stream (a JSON-RPC error)" },
      "415": { description: "Content-Type is not application/json (a JSON-RPC error)" },
      ...errorResponses(["rate_limited", "internal_error", "service_unavailable"]),
    },
  };
}

const OAUTH_ERROR = {
  type: "object",
  description: "OAuth's error (RFC 6749 §5.2, RFC 7591 §3.2.2), not the API's envelope: OAuth clients read this.",
  properties: { error: { type: "string" }, error_description: { type: "string" }, error_uri: { type: "string" } },
  required: ["error"],
};
const oauthError = (description: string): Json => ({ description, content: { "application/json": { schema: OAUTH_ERROR } } });
const anyObject = (description: string): Json => ({ description, content: { "application/json": { schema: { type: "object" } } } });
const form = (schema: TSchema): Json => ({ required: true, content: { "application/x-www-form-urlencoded": { schema: plain(schema) } } });
const htmlPage = (description: string): Json => ({ description, content: { "text/html": { schema: { type: "string" } } } });

/** The OAuth 2.1 authorization server of MCP hosts (src/people/oauth.ts, docs/dashboard.md). */
function oauthPaths(): Json {
  return {
    "/.well-known/oauth-protected-resource": {
      get: {
        operationId: "oauthProtectedResource",
        tags: ["oauth"],
        summary: "RFC 9728 protected resource metadata: this API's authorization server",
        security: [],
        responses: { "200": anyObject("Protected resource metadata") },
      },
    },
    "/.well-known/oauth-authorization-server": {
      get: {
        operationId: "oauthAuthorizationServer",
        tags: ["oauth"],
        summary: "RFC 8414 authorization server metadata",
        security: [],
        responses: { "200": anyObject("Authorization server metadata") },
      },
    },
    "/oauth/register": {
      post: {
        operationId: "oauthRegister",
        tags: ["oauth"],
        summary: "RFC 7591 dynamic client registration",
        security: [],
        requestBody: { required: true, content: { "application/json": { schema: plain(ClientRegistrationSchema) } } },
        responses: {
          "201": anyObject("The registered client: client_id, and client_secret once unless token_endpoint_auth_method is none"),
          "400": oauthError("invalid_client_metadata or invalid_redirect_uri"),
          "429": oauthError("too_many_requests: over OAUTH_REGISTRATIONS_PER_HOUR from this address"),
        },
      },
    },
    "/oauth/authorize": {
      get: {
        operationId: "oauthAuthorize",
        tags: ["oauth"],
        summary: "Authorization endpoint (code with PKCE S256); consent is asked in the dashboard",
        security: [],
        parameters: ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "scope", "resource"].map(
          (name) => ({ name, in: "query", required: ["response_type", "client_id", "code_challenge", "code_challenge_method"].includes(name), schema: { type: "string" } }),
        ),
        responses: {
          "302": { description: "Back to the client's redirect URI with an error (and state)" },
          "303": { description: "To the consent page, /dashboard/authorize (signing in first if needed)" },
          "400": htmlPage("An unknown client_id or a redirect_uri it did not register: shown, never redirected"),
        },
      },
    },
    "/oauth/token": {
      post: {
        operationId: "oauthToken",
        tags: ["oauth"],
        summary: "Token endpoint: authorization_code (with code_verifier) or refresh_token (rotating)",
        security: [],
        requestBody: form(TokenRequestSchema),
        responses: {
          "200": anyObject("access_token (an hour), token_type Bearer, expires_in, refresh_token, scope"),
          "400": oauthError("invalid_request, invalid_grant, unsupported_grant_type, invalid_target"),
          "401": oauthError("invalid_client"),
        },
      },
    },
    "/oauth/revoke": {
      post: {
        operationId: "oauthRevoke",
        tags: ["oauth"],
        summary: "RFC 7009 revocation: either token of a connection ends the connection",
        security: [],
        requestBody: form(RevokeRequestSchema),
        responses: {
          "200": anyObject("Revoked, or the token was not known"),
          "400": oauthError("invalid_request, unsupported_token_type"),
          "401": oauthError("invalid_client"),
        },
      },
    },
  };
}

/** The dashboard: HTML pages and their form posts (src/dashboard/, docs/dashboard.md). */
function dashboardPaths(): Json {
  const paths: Json = {};
  const session = [{ dashboardSession: [] }];
  for (const [path, summary] of Object.entries(DASHBOARD_PAGES)) {
    paths[path] = {
      get: {
        operationId: `dashboardPage${path.replace(/\W+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
        tags: ["dashboard"],
        summary,
        security: path === "/dashboard/sign-in" ? [] : session,
        responses: { "200": htmlPage("The page"), "303": { description: "Not signed in: to /dashboard/sign-in" } },
      },
    };
  }
  for (const [path, schema] of Object.entries(DASHBOARD_FORMS)) {
    const id = /\{id\}/.test(path);
    const item = (paths[path] ?? {}) as Json;
    item.post = {
      operationId: `dashboardPost${path.replace(/\W+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
      tags: ["dashboard"],
      summary: schema.description,
      security: path === "/dashboard/sign-in" ? [] : session,
      ...(id ? { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }] } : {}),
      requestBody: form(schema),
      responses: {
        "200": htmlPage("A page (a new key's page shows the key, once)"),
        "303": { description: "Done: to the next page" },
        "400": htmlPage("A field is not valid; the form again, saying why"),
        "403": htmlPage("No valid CSRF token of this session: nothing changed"),
        "404": htmlPage("The account has no such key or app"),
        "429": htmlPage("Too many sign-in attempts (Retry-After)"),
      },
    };
    paths[path] = item;
  }
  paths["/dashboard/assets/{file}"] = {
    get: {
      operationId: "dashboardAsset",
      tags: ["dashboard"],
      summary: "The dashboard's style sheet, script and icon (nothing is loaded from elsewhere)",
      security: [],
      parameters: [{ name: "file", in: "path", required: true, schema: { type: "string", enum: ["dashboard.css", "dashboard.js", "favicon.svg"] } }],
      responses: { "200": { description: "The file" } },
    },
  };
  return paths;
}

function ok(name: string, description = "OK"): Json {
  return { description, content: { "application/json": { schema: ref(name) } } };
}

export function buildOpenApi(registry: Registry): Json {
  const paths: Json = {
    "/v1/catalog": {
      get: {
        operationId: "getCatalog",
        summary: "Capabilities, availability, Sharpen entitlement, orientation text",
        security: [{ bearer: [] }],
        responses: { "200": ok("CatalogResponse"), ...errorResponses(AUTH_ERRORS) },
      },
    },
    "/v1/capabilities/{id}": {
      get: {
        operationId: "inspectCapability",
        summary: "Inspect one capability: request schema, follow-ups, examples, cost",
        security: [{ bearer: [] }],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": ok("CapabilityInspectResponse"),
          ...errorResponses([...AUTH_ERRORS, "capability_unknown"]),
        },
      },
    },
    "/v1/follow-up": {
      post: {
        operationId: "followUp",
        summary: "Next page, update, or a record action",
        security: [{ bearer: [] }],
        requestBody: { required: true, content: { "application/json": { schema: plain(FollowUpRequestSchema) } } },
        responses: {
          "200": {
            description: "ExecuteResponse for search-scope actions, RecordFollowUpResponse for record actions",
            content: {
              "application/json": { schema: { oneOf: [ref("ExecuteResponse"), ref("RecordFollowUpResponse")] } },
            },
          },
          ...errorResponses([
            ...AUTH_ERRORS,
            "invalid_request",
            "credits_exhausted",
            "capability_disabled",
            "record_unknown",
            "session_expired",
            "provider_error",
            "capability_unavailable",
            "provider_timeout",
          ]),
        },
      },
    },
    "/v1/sharpen": {
      post: {
        operationId: "sharpen",
        summary: "Second-opinion review of a draft by a model of another family",
        security: [{ bearer: [] }],
        requestBody: { required: true, content: { "application/json": { schema: plain(SharpenRequestSchema) } } },
        responses: {
          "200": ok("SharpenResponse"),
          ...errorResponses([
            ...AUTH_ERRORS,
            "invalid_request",
            "credits_exhausted",
            "capability_disabled",
            "sharpen_no_reviewer",
            "capability_unavailable",
            // No provider_timeout: reviewers running out of time is sharpen_no_reviewer (docs/errors.md).
          ]),
        },
      },
    },
    "/v1/account": {
      get: {
        operationId: "getAccount",
        summary: "Account, balance, Sharpen tier",
        description: "Takes an API key or OAuth access token (Bearer), or a dashboard session (its cookie): the one route that does (spec 5.5).",
        security: [{ bearer: [] }, { dashboardSession: [] }],
        responses: { "200": ok("AccountResponse"), ...errorResponses(AUTH_ERRORS) },
      },
    },
    "/v1/guide": {
      get: {
        operationId: "getGuide",
        summary: "Markdown integration guide",
        security: [{ bearer: [] }],
        responses: {
          "200": { description: "The guide", content: { "text/markdown": { schema: { type: "string" } } } },
          ...errorResponses(AUTH_ERRORS),
        },
      },
    },
    "/v1/openapi.public.json": {
      get: {
        operationId: "getPublicOpenApi",
        summary: "This document; no auth, not rate limited",
        security: [],
        responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
    "/v1/openapi.json": {
      get: {
        operationId: "getOpenApi",
        summary: "This document (authenticated)",
        security: [{ bearer: [] }],
        responses: {
          "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } },
          ...errorResponses(AUTH_ERRORS),
        },
      },
    },
    "/health/live": {
      get: { operationId: "live", summary: "Liveness", security: [], responses: { "200": ok("Health") } },
    },
    "/health/ready": {
      get: {
        operationId: "ready",
        summary: "Readiness; 503 when the database probe fails",
        security: [],
        responses: { "200": ok("Health"), "503": ok("Health", "Not ready") },
      },
    },
    "/mcp": { post: mcpOperation("mcp", [{ bearer: [] }]) },
    "/mcp/k/{key}": {
      post: {
        ...mcpOperation("mcpKeyInPath", []),
        parameters: [
          {
            name: "key",
            in: "path",
            required: true,
            description: "The API key, for hosts that cannot send headers. Never logged.",
            schema: { type: "string" },
          },
        ],
      },
    },
  };
  Object.assign(paths, oauthPaths(), dashboardPaths());
  // Headers every execute takes besides its key (the spec's body is unchanged by either).
  const EXECUTE_HEADERS = [
    {
      name: "Quarry-Dry-Run",
      in: "header",
      required: false,
      description: "`1`: check the body and answer what an execute of it would reserve (DryRunResponse); nothing is run, held or charged.",
      schema: { type: "string", enum: ["1"] },
    },
    {
      name: "Cache-Control",
      in: "header",
      required: false,
      description: "`no-cache`: ask the provider afresh instead of answering from Quarry's cache of an identical provider request (billed as usual).",
      schema: { type: "string" },
    },
  ];
  for (const cap of Object.values(registry)) {
    paths[`/v1/capabilities/${cap.id}/execute`] = {
      post: {
        operationId: `execute_${cap.id.replace(/\W/g, "_")}`,
        summary: `${cap.title}: ${cap.summary}`,
        description: cap.description,
        tags: [cap.topic],
        security: [{ bearer: [] }],
        parameters: EXECUTE_HEADERS,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: cap.publishedSchema,
              // inspect's examples (the offline demo's recordings answer them).
              examples: Object.fromEntries(cap.examples.map((e, i) => [`example${i + 1}`, { summary: e.title, value: e.body }])),
            },
          },
        },
        responses: {
          "200": {
            description: `ExecuteResponse whose results are ${recordComponent(cap.id)}; with \`Quarry-Dry-Run: 1\`, a DryRunResponse`,
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    { allOf: [ref("ExecuteResponse"), { properties: { results: { type: "array", items: ref(recordComponent(cap.id)) } } }] },
                    ref("DryRunResponse"),
                  ],
                },
              },
            },
          },
          ...errorResponses([
            ...AUTH_ERRORS,
            "invalid_request",
            "credits_exhausted",
            "capability_disabled",
            "capability_unknown",
            "provider_error",
            "capability_unavailable",
            "provider_timeout",
          ]),
        },
      },
    };
  }
  const schemas: Json = {};
  // A component's `$id` is its name here, and left out of it: inside the document it would rebase the
  // component's own `$ref`s (`#/components/schemas/…`) onto itself.
  for (const component of COMPONENTS) {
    const { $id, ...schema } = plain(component);
    schemas[$id as string] = schema;
  }
  for (const cap of Object.values(registry)) schemas[recordComponent(cap.id)] = recordSchema(cap);
  return {
    openapi: "3.1.0",
    info: {
      title: "Quarry",
      version: API_VERSION,
      description: `Typed, stateful search capabilities and Sharpen for AI agents. Contract revision ${CONTRACT_REVISION}.`,
      "x-contract-revision": CONTRACT_REVISION,
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An API key (qk_live_…) or an OAuth access token (qat_…, from POST /oauth/token): they act alike.",
        },
        dashboardSession: {
          type: "apiKey",
          in: "cookie",
          name: "quarry_session",
          description: "A signed-in dashboard session: the dashboard's own routes and GET /v1/account only.",
        },
        oauth2: {
          type: "oauth2",
          description: "For MCP hosts (the MCP authorization flow): dynamic registration, authorization code with PKCE S256, consent in the dashboard.",
          flows: {
            authorizationCode: {
              authorizationUrl: "/oauth/authorize",
              tokenUrl: "/oauth/token",
              refreshUrl: "/oauth/token",
              scopes: { quarry: "Everything an API key of the account can do." },
            },
          },
        },
      },
    },
  };
}
