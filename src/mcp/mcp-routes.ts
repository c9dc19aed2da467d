/**
 * The MCP endpoint (spec 4.9, 5.4): Streamable HTTP, stateless, at `POST /mcp` (Bearer key) and
 * `POST /mcp/k/<key>` (key in the path; the route is logged as `/mcp/k/***`, see redactUrl).
 * Order per request: a Host the SDK can use (400) → DNS-rebinding protection, Host then Origin (403,
 * rebinding.ts) → key (401 before any MCP processing) → rate limit (each tools/call as a call, other
 * messages in the protocol bound) → a fresh SDK server for this request only, answered with one JSON
 * body by json-exchange.ts (the SDK's Streamable HTTP transport, an event stream, only for a call
 * that asked for progress).
 */
import type { IncomingMessage } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type RequestId,
  McpError,
  RequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ACCESS_TOKEN_PREFIX, type Caller } from "../accounts/accounts.ts";
import type { Services } from "../services.ts";
import { API_VERSION } from "../config.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { bearerKey, publicBase, type RateBucket, withChallenge } from "../http/auth.ts";
import { hostAllowed, originAllowed } from "./rebinding.ts";
import { originOf } from "../http/origin.ts";
import { dropPrototypeKeys, maySpellPrototypeKeys, poisonedKeys } from "../http/json-body.ts";
import { isObject } from "../validation.ts";
import { admitMessages, JsonExchange, type TransportAnswer } from "./json-exchange.ts";
import { ProgressReporter, progressTokenOf, wantsProgress } from "./progress.ts";
import { callTool, INSTRUCTIONS, TOOLS, toolError } from "./tools.ts";

/**
 * One validator for every per-request server: the SDK otherwise builds a fresh Ajv instance per
 * Server (it only uses it for elicitation, which Quarry never sends), which halved throughput.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

const PATHS = ["/mcp", "/mcp/k", "/mcp/k/:key"] as const;

/** A JSON-RPC error answered at the transport, before any MCP processing (as MCP transports answer). */
function transportError(reply: FastifyReply, status: number, message: string, headers: Record<string, string> = {}) {
  return reply
    .code(status)
    .headers(headers)
    .type("application/json")
    .send(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The protocol messages' own per-key bound (initialize, tools/list, ping, notifications). */
function protocolBucket(services: Services): RateBucket {
  return { name: "mcp-protocol", perMinute: services.config.mcp.protocolPerMinute };
}

/** The JSON-RPC ids of the tools/call requests in a message or batch (notifications have no id). */
function toolCallIds(message: unknown): RequestId[] {
  const list = Array.isArray(message) ? message : [message];
  const ids: RequestId[] = [];
  for (const m of list) {
    if (isObject(m) && m.method === "tools/call" && (typeof m.id === "string" || typeof m.id === "number"))
      ids.push(m.id);
  }
  return ids;
}

/**
 * Resolve the caller (401 here, before the SDK sees anything) and count the request. Each tools/call
 * counts against the key's call limit exactly like the REST call it stands for (SPEC 8: 60 a minute),
 * and one over the limit is answered as a tool error `rate_limited` (not HTTP 429), so the other
 * messages of the request still get their answers. A POST without a tools/call (initialize, the
 * initialized notification, tools/list, ping) counts against the key's protocol bound instead
 * (MCP_PROTOCOL_RATE_PER_MINUTE, 600), so a host's handshake does not spend its calls; over that
 * bound it is HTTP `429 rate_limited`.
 */
async function admit(services: Services, key: string | undefined, reply: FastifyReply, calls: RequestId[]) {
  const limited = new Map<RequestId, ApiError>();
  if (calls.length === 0) return { caller: await services.authenticate(key, reply, protocolBucket(services)), limited };
  let caller: Caller | undefined;
  for (const id of calls) {
    try {
      caller = await services.authenticate(key, reply);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "rate_limited") throw err;
      limited.set(id, err);
      caller ??= await services.accounts.authenticate(key);
    }
  }
  return { caller: caller!, limited };
}

/**
 * The body decoded as the SDK decodes it when it parses the body itself (as fetch's `json()` does: a
 * leading byte order mark dropped, malformed bytes replaced). Had the two readings differed (a BOM
 * made this one fail while the SDK's succeeded), a batch's tools/calls would run uncounted.
 */
const UTF8 = new TextDecoder("utf-8");

/**
 * Every tools/call of a batch whose id another request of the batch also uses: the SDK answers one
 * message per id, so one of them would run (and be charged) with its answer lost. Refused, unrun.
 */
function sharedIds(message: unknown, refused: Map<RequestId, ApiError>): void {
  if (!Array.isArray(message)) return;
  const uses = new Map<RequestId, number>();
  for (const m of message) {
    if (isObject(m) && typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number"))
      uses.set(m.id, (uses.get(m.id) ?? 0) + 1);
  }
  for (const id of toolCallIds(message)) {
    const n = uses.get(id) ?? 0;
    if (n < 2) continue;
    refused.set(
      id,
      new ApiError("invalid_request", `id ${JSON.stringify(id)} is used by ${n} requests of this batch; none of its tool calls ran.`, {
        violations: [{ path: "/id", message: `id ${JSON.stringify(id)} is used by ${n} requests of this batch` }],
        hint: "Give each request of a batch its own id: answers are matched to requests by id.",
      }),
    );
  }
}

/**
 * The JSON-RPC message (undefined when the body is not JSON: the SDK then answers -32700) and, per
 * tools/call id, the refusals: arguments that hold prototype keys get the same 400 invalid_request
 * with one violation per key (its JSON pointer from the arguments' root) as a REST body gets
 * (json-body.ts), and an id shared by several requests of a batch is refused (sharedIds). Prototype
 * keys anywhere else in the message are dropped before the SDK sees it.
 */
function parseMessage(raw: Buffer | undefined): { message: unknown; refused: Map<RequestId, ApiError> } {
  const refused = new Map<RequestId, ApiError>();
  if (!raw || raw.length === 0) return { message: undefined, refused };
  const text = UTF8.decode(raw);
  let message: unknown;
  try {
    // JSON.parse makes "__proto__" an own data property (it never sets a prototype).
    message = JSON.parse(text);
  } catch {
    return { message: undefined, refused };
  }
  sharedIds(message, refused);
  if (!maySpellPrototypeKeys(text)) return { message, refused };
  for (const m of Array.isArray(message) ? message : [message]) {
    if (!isObject(m) || m.method !== "tools/call" || !isObject(m.params)) continue;
    if (typeof m.id !== "string" && typeof m.id !== "number") continue;
    const violations = poisonedKeys(m.params.arguments);
    if (violations.length > 0 && !refused.has(m.id))
      refused.set(m.id, invalidRequest(violations, "The arguments hold keys that are refused."));
  }
  // Prototype keys are dropped before the SDK sees the message (its schemas copy keys onto objects).
  dropPrototypeKeys(message);
  return { message, refused };
}

/**
 * tools/call as the SDK's protocol layer parses it before its Server checks the params: loosely.
 * Given the strict schema, the protocol layer's own parse fails first on bad params (no `name`,
 * `arguments` not an object) and the SDK answers -32603 Internal error with the validator's dump;
 * this way the Server's check runs and answers -32602 Invalid params, as JSON-RPC has it.
 */
const LOOSE_CALL_TOOL_REQUEST = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

/** A tools/call `_meta` key asking for a fresh answer (not from Quarry's answer cache). */
export const FRESH_META = "quarry/fresh";

const GUIDE_URI = "quarry://guide";
const INSPECT_URI = "quarry://capabilities/";

function listResources(services: Services) {
  return [
    { uri: GUIDE_URI, name: "guide", title: "Quarry integration guide", mimeType: "text/markdown", description: "How to use Quarry: the flow, credits, paging, errors, and Sharpen's families and stage credits in this deployment (GET /v1/guide)." },
    ...Object.values(services.registry).map((cap) => ({
      uri: `${INSPECT_URI}${cap.id}`,
      name: cap.id,
      title: cap.title,
      mimeType: "application/json",
      description: `${cap.summary} The inspect document: request schema, follow-ups, examples and cost.`,
    })),
  ];
}

/** One resource's contents; an unknown URI is a JSON-RPC error (-32002, resource not found). */
function readResource(services: Services, uri: string) {
  if (uri === GUIDE_URI) return { contents: [{ uri, mimeType: "text/markdown", text: services.guide() }] };
  if (uri.startsWith(INSPECT_URI)) {
    const id = uri.slice(INSPECT_URI.length);
    if (Object.hasOwn(services.registry, id)) {
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(services.catalog.inspect(id)) }] };
    }
  }
  throw new McpError(-32002, `Resource not found: ${uri}. resources/list names the guide and each capability.`, { uri });
}

function createServer(
  services: Services,
  request: FastifyRequest,
  caller: Caller,
  refusals: Map<RequestId, ApiError>,
) {
  const origin = originOf(request);
  const { requestId } = origin;
  const server = new Server(
    { name: "quarry", version: API_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: services.notice === undefined ? INSTRUCTIONS : `${INSTRUCTIONS} ${services.notice}`,
      jsonSchemaValidator: SCHEMA_VALIDATOR,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  // The guide and each capability's inspect document, for hosts that browse resources: read without
  // spending a tool call (they count in the protocol bound, like tools/list).
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listResources(services) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => readResource(services, req.params.uri));
  server.setRequestHandler(LOOSE_CALL_TOOL_REQUEST, async (call, extra) => {
    const refused = refusals.get(extra.requestId);
    if (refused) return toolError(refused.toEnvelope(requestId));
    // The Server checked the request against CallToolRequestSchema before calling this.
    const { params } = call as CallToolRequest;
    const token = progressTokenOf(extra._meta);
    // `_meta: {"quarry/fresh": true}`: the MCP twin of REST's Cache-Control: no-cache (Quarry's answer cache not read).
    const callOrigin = isObject(extra._meta) && extra._meta[FRESH_META] === true ? { ...origin, fresh: true } : origin;
    if (token === undefined) return callTool(services, { caller, origin: callOrigin, log: request.log }, params.name, params.arguments);
    // A followed call (progress.ts): its steps become notifications/progress on this request's stream.
    const reporter = new ProgressReporter(token, (n) => extra.sendNotification(n));
    try {
      return await callTool(services, { caller, origin: { ...callOrigin, progress: reporter.step }, log: request.log }, params.name, params.arguments);
    } finally {
      reporter.stop();
    }
  });
  return server;
}

/**
 * Why the SDK could not take this request's Host, or null. The SDK builds the request's URL from
 * Host (@hono/node-server) and answers a 400 with an empty body when it cannot: a missing Host (an
 * HTTP/1.0 request may omit it) or one that is no host name. The same test, made first, answers in
 * the envelope and before the key's limit is counted.
 */
function hostProblem(host: string | undefined): string | null {
  if (host === undefined || host === "") return "The Host header is required on /mcp.";
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return "The Host header is not a valid host.";
  }
  const bare = host.includes(":") ? host.replace(/:\d+$/, "") : host;
  if (hostname.length !== host.length && hostname !== bare.toLowerCase()) return "The Host header is not a valid host.";
  return null;
}

async function handle(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string | undefined,
  inPath = false,
) {
  const host = request.headers.host;
  const badHost = hostProblem(host);
  if (badHost !== null) throw new ApiError("invalid_request", badHost, { violations: [{ path: "", message: badHost }] });
  // DNS-rebinding protection (rebinding.ts): before the key, as MCP transports do it.
  if (!hostAllowed(services.config, host!)) return transportError(reply, 403, "Invalid Host header: this server does not answer to that name.");
  const origin = request.headers.origin;
  if (!originAllowed(services.config, origin, host!)) return transportError(reply, 403, "Invalid Origin header: requests from this origin are not allowed.");
  if (origin !== undefined) reply.header("access-control-allow-origin", origin).header("vary", "Origin");
  const raw = Buffer.isBuffer(request.body) ? request.body : undefined;
  const { message, refused } = parseMessage(raw);
  // As on REST, where the key's limit is counted before the body is read, every tools/call counts,
  // one refused for its arguments included, and over the limit rate_limited wins over that refusal.
  let admitted: Awaited<ReturnType<typeof admit>>;
  try {
    // The URL form is for API keys: an OAuth token in a URL would end up in histories and logs.
    if (inPath && key?.startsWith(ACCESS_TOKEN_PREFIX)) {
      throw new ApiError("unauthorized", "An OAuth access token goes in the Authorization header, never in the URL.", {
        hint: "Send `Authorization: Bearer <token>` to POST /mcp.",
      });
    }
    admitted = await admit(services, key, reply, toolCallIds(message));
  } catch (error) {
    // A 401 tells MCP hosts where to get an OAuth token (RFC 9728): docs/dashboard.md.
    throw withChallenge(error, publicBase(services.config, request), key !== undefined);
  }
  const { caller, limited } = admitted;
  for (const [id, err] of limited) refused.set(id, err);

  const server = createServer(services, request, caller, refused);
  // One JSON answer (json-exchange.ts), unless a tools/call asked for progress: then the SDK's
  // transport answers with an event stream (progress.ts).
  if (!wantsProgress(message)) return answerJson(server, request, reply, message);

  // From here the SDK owns the response. Fastify's headers (x-request-id, RateLimit-*) go on the
  // raw response; the SDK merges its own when it writes the head.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  // The body stream is consumed; the SDK's Node adapter reads `rawBody` instead, so malformed
  // JSON and batches are answered by the SDK itself.
  if (raw) (request.raw as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
  reply.hijack();
  // During the drain its head says the connection closes, as Fastify's answers do (http/connections.ts).
  request.server.connections.hijacked(reply.raw);

  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // A client gone before its answer: close the pair, which aborts the SDK's in-flight handlers. After
  // an answer written in full there is nothing to stop (no stream, timer or session in stateless JSON
  // mode) and both are garbage; closing them anyway built an McpError with its stack trace for every
  // call, ~7 µs of a ~330 µs call (docs/performance.md, twenty-first session, "MCP: an error built on
  // every close").
  reply.raw.on("close", () => {
    if (reply.raw.writableFinished) return;
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, message);
  } catch (err) {
    request.log.error({ err }, "MCP request failed");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(INTERNAL_ERROR);
    }
  }
}

/** The answer to a request that failed inside Quarry, on either path (as the SDK's transport words it). */
const INTERNAL_ERROR = JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });

/** A request answered with one JSON body through a JsonExchange; the reply stays Fastify's. */
async function answerJson(server: Server, request: FastifyRequest, reply: FastifyReply, message: unknown) {
  const messages = admitMessages(request.headers, message);
  if (!Array.isArray(messages)) return sendAnswer(reply, messages);
  const exchange = new JsonExchange();
  // A client gone before its answer: closing the exchange aborts the Server's handlers in flight
  // (after an answer written in full there is nothing to stop; see handle's note on close).
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) void exchange.close();
  });
  try {
    await server.connect(exchange);
    const answer = await exchange.deliver(messages, request.headers);
    if (answer === undefined) return reply.hijack();
    return sendAnswer(reply, answer);
  } catch (err) {
    request.log.error({ err }, "MCP request failed");
    return sendAnswer(reply, { status: 500, body: INTERNAL_ERROR });
  }
}

function sendAnswer(reply: FastifyReply, answer: TransportAnswer) {
  if (answer.body === undefined) return reply.code(answer.status).send();
  return reply.code(answer.status).type("application/json").send(answer.body);
}

export function registerMcpRoutes(app: FastifyInstance, services: Services): void {
  app.register(async (scope) => {
    // The raw bytes: malformed JSON, wrong content types and batches are answered as the SDK's
    // transport answers them (json-exchange.ts admitMessages, or the SDK's transport for progress).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

    scope.post("/mcp", (request, reply) =>
      handle(services, request, reply, bearerKey(request.headers.authorization)),
    );
    scope.post<{ Params: { key: string } }>("/mcp/k/:key", (request, reply) =>
      handle(services, request, reply, request.params.key, true),
    );
    // `/mcp/k/` with the key left out is a missing key (401), not an unknown route.
    scope.post("/mcp/k", (request, reply) => handle(services, request, reply, undefined));
    // Stateless: no GET stream and no session to DELETE; no key is checked for a refusal. Every
    // method but POST answers with the same `Allow: POST`; OPTIONS (a browser's preflight) answers
    // 204 with it, and with CORS headers for an origin the endpoint accepts.
    for (const path of PATHS) {
      scope.route({
        method: ["GET", "DELETE", "PUT", "PATCH"],
        url: path,
        handler: async (_request, reply) => transportError(reply, 405, "Method not allowed.", { allow: "POST" }),
      });
      scope.route({
        method: "OPTIONS",
        url: path,
        handler: async (request, reply) => {
          reply.code(204).header("allow", "POST");
          const { origin, host } = request.headers;
          if (origin !== undefined && host !== undefined && hostAllowed(services.config, host) && originAllowed(services.config, origin, host)) {
            reply
              .header("access-control-allow-origin", origin)
              .header("access-control-allow-methods", "POST")
              .header("access-control-allow-headers", "authorization, content-type, accept, mcp-protocol-version")
              .header("access-control-max-age", "600")
              .header("vary", "Origin");
          }
          return reply.send();
        },
      });
    }
  });
}
