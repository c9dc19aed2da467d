/** Where a call comes from, as the services see it (errors.ts CallOrigin), for REST and MCP alike. */
import type { FastifyRequest } from "fastify";
import type { CallOrigin } from "../errors.ts";

/**
 * The request's id and a check of its connection: the caller has gone once the socket is destroyed
 * or can no longer be written to (an answer could not reach it). Read when a call checks, never
 * listened for: nothing is added to the connection per request.
 */
export function originOf(request: FastifyRequest): CallOrigin {
  const socket = request.raw.socket;
  const cacheControl = request.headers["cache-control"];
  return {
    requestId: String(request.id),
    clientGone: () => socket.destroyed === true || socket.writable === false,
    // `Cache-Control: no-cache` (or no-store): a fresh answer from the provider, billed as usual.
    ...(typeof cacheControl === "string" && /\bno-(?:cache|store)\b/i.test(cacheControl) ? { fresh: true } : {}),
  };
}
