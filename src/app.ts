/**
 * buildApp(deps): the Fastify application with its services wired, testable with inject() or a
 * real listener. Nothing here reads the environment or opens connections: deps are injected.
 */
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { API_VERSION } from "./config.ts";
import { ApiError } from "./errors.ts";
import { restAuth } from "./http/auth.ts";
import { closeAfterLatest, type Connections, isClosing, trackConnections, withRequestId } from "./http/connections.ts";
import { answerClientError, noRoute, redactUrl, sendError } from "./http/error-handler.ts";
import { jsonBodyParser } from "./http/json-body.ts";
import { registerDocsRoutes } from "./http/docs-routes.ts";
import { registerAccountRoute, registerV1Routes } from "./http/v1-routes.ts";
import { registerOAuthRoutes } from "./http/oauth-routes.ts";
import { registerPeopleRoutes } from "./dashboard/routes.ts";
import { registerMcpRoutes } from "./mcp/mcp-routes.ts";
import { type AppDeps, createServices, type Services } from "./services.ts";

declare module "fastify" {
  interface FastifyInstance {
    services: Services;
    /** Each connection's latest answer; the graceful drain (http/connections.ts). */
    connections: Connections;
  }
}

/** Log levels at which the access line (info) is not written: skip building it. */
const QUIET_LEVELS = new Set(["silent", "warn", "error", "fatal"]);

export type { AppDeps, Services, SharpenHandler } from "./services.ts";

/** A hop count as proxy-addr takes it: the nearest `hops` addresses are proxies. */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const services = createServices(deps);
  const app = Fastify({
    logger:
      deps.logger === undefined
        ? { level: deps.config.logLevel, redact: ["req.headers.authorization"] }
        : (deps.logger as boolean),
    // One access line per request is written by the onResponse hook below, with the URL redacted.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    // Behind a proxy or TLS terminator: the client's address (per-address limits) and scheme (the
    // dashboard's Secure cookie) from its X-Forwarded-* headers, believed only from TRUST_PROXY.
    trustProxy: typeof deps.config.trustProxy === "number" ? trustHops(deps.config.trustProxy) : deps.config.trustProxy,
    // Node's guard against requests sent too slowly, which Fastify turns off by default (0); the
    // timed-out request is answered in clientErrorHandler below.
    requestTimeout: deps.config.requestTimeoutMs,
    // Kept on the raw request too, so an answer made outside Fastify (a request timing out:
    // error-handler.ts) carries the id of the request's own log line.
    genReqId: (req) => withRequestId(req, services.ids.requestId()),
    requestIdHeader: false,
    // Requests read once the drain began are refused by the onRequest hook below, in the envelope
    // (Fastify's own 503 has another body, without code, retryable or request id).
    return503OnClosing: false,
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true },
    // Router-level refusals (bad percent-encoding, an over-long path segment) get the envelope too;
    // their messages never echo the URL, which may hold an MCP key.
    frameworkErrors: (error, request, reply) => sendError(error, request, reply),
    // Bytes Node's HTTP parser refuses get the envelope too (error-handler.ts).
    clientErrorHandler: (error, socket) => answerClientError(error, socket, services.ids.requestId()),
    // A request without Host is answered by the onRequest hook below, in the envelope (Node's own
    // refusal has an empty body).
    // Connections are checked for the request timeout this often (Node's default is 30 s). The
    // headers' own limit must not exceed the request's: Node swaps the two when it does.
    http: {
      requireHostHeader: false,
      headersTimeout: Math.min(60_000, deps.config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(5000, Math.ceil(deps.config.requestTimeoutMs / 4)),
    },
  });
  // Provider drift, challenges and failures are logged with the app's logger (never a key).
  deps.upstream.attachLogger?.(app.log.child({ component: "upstream" }));
  app.decorate("services", services);
  const connections = trackConnections(app.server);
  app.decorate("connections", connections);
  // REST bodies go through Quarry's own JSON parser (JSON.parse's message, refused keys at their pointers).
  app.removeContentTypeParser("application/json");
  // Fastify reads text/plain as a string by default; REST bodies are JSON only (400 as for any other type).
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("application/json", { parseAs: "string" }, jsonBodyParser);
  app.decorateRequest("caller", null);

  // Callback-style hooks: an async hook costs a promise per request on the hot path.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", String(request.id));
    if (connections.draining()) {
      // Read after the shutdown began: the process is going away, so the request is not started.
      done(new ApiError("service_unavailable", "Quarry is shutting down; the request was not run.", {
        hint: "Send it again: a new connection reaches a running instance (this one once it restarts). Nothing was charged.",
      }));
      return;
    }
    if (isClosing(request.raw.socket)) {
      // Read from a connection that closes after an answer already made (a request before this one
      // timed out): its own answer would be lost with the connection, so it must not run.
      done(new ApiError("service_unavailable", "This connection is closing; the request was not run.", {
        hint: "Send the request again on a new connection.",
      }));
      return;
    }
    // HTTP/1.1 requires Host (RFC 9112 3.2); HTTP/1.0 may omit it.
    if (request.headers.host === undefined && request.raw.httpVersionMinor === 1) {
      const message = "The Host header is required in HTTP/1.1.";
      // Closed after this answer, or after those of requests already pipelined behind it.
      closeAfterLatest(request.raw.socket);
      done(new ApiError("invalid_request", message, { violations: [{ path: "", message }] }));
      return;
    }
    done();
  });
  // While draining, the answer to a connection's latest request closes it (http/connections.ts).
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (connections.closesAfter(reply.raw)) reply.header("connection", "close");
    done(null, payload);
  });
  app.addHook("onResponse", (request, reply, done) => {
    const level = (request.log as { level?: string }).level;
    // No level: Fastify's no-op logger (logger: false).
    if (level !== undefined && !QUIET_LEVELS.has(level)) {
      request.log.info(
        { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        "request",
      );
    }
    done();
  });
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) => sendError(noRoute(request), request, reply));

  const auth = restAuth(services.authenticate, deps.config);
  registerV1Routes(app, services, auth);
  // The dashboard and OAuth's authorize endpoint, in the scope holding the session plugins; GET /v1/account
  // (key, token or dashboard session: v1-routes.ts) is registered in that scope too. Then OAuth for MCP hosts.
  await registerPeopleRoutes(app, services, (scope, signedIn) => registerAccountRoute(scope, services, signedIn));
  registerOAuthRoutes(app, services);
  registerMcpRoutes(app, services);
  registerDocsRoutes(app, services, auth, {
    version: API_VERSION,
    probes: { database: () => deps.store.ping(), ...deps.readinessProbes },
  });
  // Connections the app opened itself (OAuth client metadata documents) end with it.
  app.addHook("onClose", async () => {
    await services.oauth.close();
    await services.answers.store.close();
  });
  return app;
}
