/**
 * Every error leaves as the spec envelope with the request id. Fastify's own client errors
 * (malformed JSON, wrong content type, oversized body) are 400 invalid_request, never 500, except
 * on a route that does not exist: that is 404 not_found whatever the body.
 */
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { unloggedWarning, warningOf } from "../upstream/faults.ts";
import { ApiError, ClientGone } from "../errors.ts";
import { closeAfterLatest, latestResponse, pendingLatest, requestIdOf } from "./connections.ts";
import { BODY_HINT } from "./json-body.ts";

// Malformed and empty JSON bodies are refused by Quarry's own parser (json-body.ts), not here.
const CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "Send the body as application/json.",
  FST_ERR_CTP_BODY_TOO_LARGE: "The body is too large.",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "The Content-Length does not match the body.",
  FST_ERR_CTP_INVALID_TYPE: "Send the body as application/json.",
  FST_ERR_BAD_URL: "The URL is not valid (bad percent-encoding).",
  FST_ERR_MAX_PARAM_LENGTH: "A path segment is too long.",
  FST_ERR_ASYNC_CONSTRAINT: "The request could not be routed.",
};

/** Refusals of the URL, not the body: their hint points at the routes. */
const URL_ERRORS = new Set(["FST_ERR_BAD_URL", "FST_ERR_MAX_PARAM_LENGTH", "FST_ERR_ASYNC_CONSTRAINT"]);
const URL_HINT = "Check the URL: GET /v1/openapi.public.json lists every route, and capability ids come from GET /v1/catalog.";

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as Partial<FastifyError> & { name?: string };
  const known = fe.code ? CLIENT_ERRORS[fe.code] : undefined;
  if (known || (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) || fe.name === "SyntaxError") {
    return new ApiError("invalid_request", known ?? fe.message ?? "The request is not valid.", {
      violations: [{ path: "", message: known ?? fe.message ?? "not valid" }],
      hint: fe.code !== undefined && URL_ERRORS.has(fe.code) ? URL_HINT : BODY_HINT,
    });
  }
  return new ApiError("internal_error", "Something went wrong inside Quarry; nothing was charged.", {
    cause: error,
    hint: "Retry; if it persists, report the requestId.",
  });
}

/**
 * `/mcp/k` however a path spells it (any case, repeated slashes) and everything after it up to the
 * query. A match starts only at the first slash of a run (the lookbehind): tried at every slash of a
 * long run, `\/+` made the scan quadratic (16 KB of slashes took 120 ms of the event loop per request).
 */
const MCP_KEY_ROUTE = /(?<!\/)\/+mcp\/+k(?=[/?#]|$)[^?#]*/gi;
/** A live key's or OAuth token's prefix and what follows it, wherever in the URL it appears. */
const KEY_SHAPED = /(qk_live_|qat_|qrt_)[0-9a-z]*/gi;
const PERCENT_BYTE = /%([0-9a-f]{2})/gi;

/**
 * The URL as it may be logged or echoed: the key of the MCP URL form and anything shaped like a key
 * replaced by `***`. The router decodes percent-escapes before matching (`/mcp/%6B/<key>` and
 * `/mcp/k/%71k_live_…` reach the key route), so the check runs on the escapes decoded byte by byte;
 * when something is replaced, the decoded form is returned (with the secret gone), otherwise the
 * URL as sent.
 */
export function redactUrl(url: string): string {
  const plain = url.includes("%") ? url.replace(PERCENT_BYTE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : url;
  const redacted = plain
    .replace(MCP_KEY_ROUTE, (route) => (/^\/+mcp\/+k\/*$/i.test(route) ? route : "/mcp/k/***"))
    .replace(KEY_SHAPED, "$1***");
  return redacted === plain ? url : redacted;
}

/**
 * Methods a route may be declared with (OPTIONS is served by none). HEAD is not listed: Fastify
 * serves it wherever GET is, so a HEAD that reaches this handler has no GET to name either.
 */
const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The methods other than the request's under which a route serves its path (e.g. POST for a GET on execute). */
function otherMethods(request: FastifyRequest, path: string): string[] {
  return ROUTE_METHODS.filter((method) => {
    if (method === request.method) return false;
    try {
      return request.server.findRoute({ method, url: path }) !== null;
    } catch {
      return false;
    }
  });
}

/**
 * 404 not_found for a path no route serves (the URL is redacted: it may hold an MCP key). When the
 * path is served under other methods (a GET on an execute URL) it is 405 Method Not Allowed, still
 * code not_found (no such route), with the methods in `Allow`, the message and the hint.
 */
export function noRoute(request: FastifyRequest): ApiError {
  const path = request.url.split("?")[0] ?? "";
  const shown = `${request.method} ${redactUrl(path)}`;
  const allowed = otherMethods(request, path);
  if (allowed.length > 0) {
    const methods = allowed.join(" or ");
    return new ApiError("not_found", `No route ${shown}; this path takes ${methods}.`, {
      status: 405,
      hint: `Send the request as ${methods}. GET /v1/openapi.public.json lists every route.`,
      headers: { allow: allowed.join(", ") },
    });
  }
  return new ApiError("not_found", `No route ${shown}.`, {
    hint: "GET /v1/openapi.public.json lists every route.",
  });
}

/**
 * How a failed call is logged, for REST and MCP alike: a fault of Quarry's own (internal_error, a
 * store outage) at error with its stack trace; a provider's fault (provider_error, provider_timeout,
 * sharpen_no_reviewer) at warn, one line without a stack, since the trace would point into the
 * upstream client, not at a bug; a missing vendor key and client errors not at all.
 */
export function logFailure(log: Pick<FastifyRequest["log"], "error" | "warn">, api: ApiError, extra: Record<string, unknown> = {}): void {
  if (api.status < 500 || api.code === "capability_unavailable") return;
  // A provider's drift or challenge found after the client answered (a mapper checking the HTML or XML
  // it parsed) is logged as the client logs its own: once, with the provider and pointer.
  const warned = unloggedWarning(api);
  if (warned !== undefined) {
    log.warn({ provider: warned.provider, fault: warned.fault, ...(warned.pointer === undefined ? {} : { pointer: warned.pointer }), ...extra }, warningOf(warned.fault));
  }
  if (api.code === "provider_error" || api.code === "provider_timeout" || api.code === "sharpen_no_reviewer") {
    const cause = api.cause instanceof Error ? api.cause.message : undefined;
    log.warn({ code: api.code, ...extra, ...(cause === undefined ? {} : { cause }) }, api.message);
    return;
  }
  log.error({ err: api.cause ?? api, code: api.code, ...extra }, api.message);
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ClientGone) {
    // Nobody to answer: the call was abandoned before its commit (not charged). Logged, not sent.
    request.log.info({ cause: error.cause }, error.message);
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  }
  const bodyError = (error as Partial<FastifyError> | null)?.code?.startsWith("FST_ERR_CTP_") === true;
  const api = request.is404 && bodyError ? noRoute(request) : toApiError(error);
  logFailure(request.log, api);
  // Router-level refusals (bad percent-encoding, an over-long segment) never reach the onRequest
  // hook that sets it: every answer carries its request id.
  reply.header("x-request-id", String(request.id));
  if (api.headers) reply.headers(api.headers);
  if (api.retryAfter !== undefined) reply.header("retry-after", String(api.retryAfter));
  return reply.code(api.status).type("application/json; charset=utf-8").send(api.toEnvelope(String(request.id)));
}

/** Node's HTTP parser errors that get their own message; others say "malformed" with the parser's code. */
const PARSER_ERRORS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "The request headers are too large.",
  ERR_HTTP_REQUEST_TIMEOUT: "The request was not received in time.",
  ERR_HTTP_HEADERS_TIMEOUT: "The request headers were not received in time.",
};

/**
 * A connection whose bytes Node's HTTP parser refused (a header line without a colon, a request line
 * that is not HTTP, Content-Length beside chunked encoding, headers over the size limit, a client too
 * slow): no request exists, so Fastify's handlers never run. The answer is still the envelope,
 * `400 invalid_request` with a request id (also in `X-Request-Id`), and the connection closes. The
 * message names the parser's error code, never the bytes sent (they may hold a key). When answers to
 * earlier requests on the connection are still being made, they are let finish and the connection
 * closes after the last of them instead (writing ours first would garble them; closing after the
 * first would lose the others, charged already: http/connections.ts).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, newId: string): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const code = error.code ?? "unknown";
  const message = PARSER_ERRORS[code] ?? `The request is not valid HTTP (${/^[A-Z0-9_]{1,60}$/.test(code) ? code : "unknown"}).`;
  const envelope = (requestId: string) =>
    JSON.stringify(
      new ApiError("invalid_request", message, {
        violations: [{ path: "", message }],
        hint: "Send an HTTP/1.1 request with well-formed headers (under 16 KiB in all) and a body as its Content-Length says, without pausing.",
      }).toEnvelope(requestId),
    );
  // The latest request is still arriving (its body sent too slowly, or broken off): its route never
  // gets it, and nothing after it can be read.
  const latest = latestResponse(socket);
  if (latest !== undefined && !latest.req.complete) {
    // Nothing more is read from it; a request already read behind it is refused unrun (onRequest).
    socket.pause();
    closeAfterLatest(socket);
    if (latest.writableFinished) {
      // Answered from its headers already (a 401): Node was reading and dropping the rest.
      socket.destroy();
    } else if (!latest.headersSent) {
      // Its answer is this refusal, written after the answers before it (pipelined calls, charged
      // already); then the connection closes. It carries the request's own id, the one its log line shows.
      const requestId = requestIdOf(latest.req) ?? newId;
      const body = envelope(requestId);
      // closeAfterLatest above made it the connection's last answer (shouldKeepAlive false).
      latest.writeHead(400, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        "x-request-id": requestId,
        "cache-control": "no-store",
      });
      latest.end(body);
    } else {
      latest.once("finish", () => socket.destroy());
    }
    return;
  }
  // Answers still to be written (pipelined requests): they all go out, then the connection closes.
  if (pendingLatest(socket) !== undefined) {
    closeAfterLatest(socket);
    return;
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = envelope(newId);
  socket.end(
    "HTTP/1.1 400 Bad Request\r\n" +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${newId}\r\n` +
      "cache-control: no-store\r\n" +
      "connection: close\r\n\r\n" +
      body,
  );
  // end() only half-closes: a client that never closes its side is cut off after a while.
  socket.setTimeout(5000, () => socket.destroy());
}
