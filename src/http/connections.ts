/**
 * Closing a connection without losing an answer that is still queued on it.
 *
 * A client that pipelines sends a request before the previous answer is back. Node runs them all,
 * queues their answers and writes them in request order; an answer that closes the connection
 * (`Connection: close`) makes Node discard every answer queued behind it, although those calls ran
 * and were charged. Two things close connections on purpose: the graceful drain (keep-alive
 * sockets must not hold the exit) and a parser error after earlier requests (bytes that are not
 * HTTP: nothing more can be read). Both now close a connection only after the answer to its latest
 * request, the one Node writes last:
 * - that answer carries `Connection: close` when its headers are not made yet (the drain's onSend
 *   hook; `hijacked` for MCP's replies, whose head the SDK writes; `closeAfterLatest` sets it on a
 *   response still being made);
 * - once it has been written, the socket is ended in any case: an answer made keep-alive earlier
 *   can be the last one out, and some answers run no Fastify hook (MCP's hijacked replies; router
 *   refusals such as a bad percent-encoding, answered outside any route). An answer made before
 *   its request's body was read (a 401 from the headers) ends it once the body is in.
 * A request that arrives during the drain is refused by Fastify with 503 before it runs.
 */
import { type IncomingMessage, type Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

const LATEST = Symbol("quarry.latestResponse");
const CLOSING = Symbol("quarry.closeAfterLatest");

type TrackedSocket = Socket & { [LATEST]?: ServerResponse; [CLOSING]?: true };

export interface Connections {
  /** The graceful drain: from now on every connection closes after the answer to its latest request. */
  drain(): void;
  /** Whether the drain has begun: a request read from now on is refused unrun (the onRequest hook). */
  draining(): boolean;
  /** True while draining and `res` answers its connection's latest request (it may close it). */
  closesAfter(res: ServerResponse): boolean;
  /**
   * `res` is answered outside Fastify (a hijacked reply): its head, whenever written, says
   * `Connection: close` as the onSend hook's would, so the client does not reuse a connection that
   * is about to close.
   */
  hijacked(res: ServerResponse): void;
}

/** Track each connection's latest response (before Fastify sees the request) and end sockets on time. */
export function trackConnections(server: Server): Connections {
  let draining = false;
  const endIfClosing = (socket: TrackedSocket, res: ServerResponse): void => {
    if ((draining || socket[CLOSING]) && socket[LATEST] === res && !socket.destroyed && !socket.writableEnded)
      socket.destroySoon();
  };
  // One shared listener, `this` being the response: no closure per request.
  function onFinish(this: ServerResponse): void {
    const socket = this.req.socket as TrackedSocket;
    if (socket[LATEST] !== this) return;
    // Answered before its body was read (a 401 or 429 from the hooks): Node reads and drops the
    // rest, so the connection is busy until it ends; only then may it close (rare: a closure here).
    if (!this.req.complete) this.req.once("end", () => endIfClosing(socket, this));
    else endIfClosing(socket, this);
  }
  const closesAfter = (res: ServerResponse): boolean =>
    draining && (res.req.socket as TrackedSocket)[LATEST] === res;
  // Shared by every hijacked response (`this`); Node's implicit head (first write) comes here too.
  function writeHeadClosing(this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    if (!this.headersSent && closesAfter(this)) this.setHeader("connection", "close");
    return ServerResponse.prototype.writeHead.apply(this, args);
  }
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    (req.socket as TrackedSocket)[LATEST] = res;
    res.on("finish", onFinish);
  });
  return {
    drain() {
      draining = true;
    },
    draining: () => draining,
    closesAfter,
    hijacked(res) {
      res.writeHead = writeHeadClosing as ServerResponse["writeHead"];
    },
  };
}

/** The response to the connection's latest request, whatever its state (undefined: none yet, or not tracked). */
export function latestResponse(socket: Socket): ServerResponse | undefined {
  return (socket as TrackedSocket)[LATEST];
}

/**
 * The response of the connection's latest request while it is still being made or waiting to be
 * written, else undefined (nothing is pending on the connection, or it is not tracked).
 */
export function pendingLatest(socket: Socket): ServerResponse | undefined {
  const latest = latestResponse(socket);
  return latest !== undefined && !latest.writableFinished ? latest : undefined;
}

const REQUEST_ID = Symbol("quarry.requestId");

/** Note Fastify's id for `req` on it (genReqId), for answers made outside Fastify; returns the id. */
export function withRequestId(req: IncomingMessage, id: string): string {
  (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID] = id;
  return id;
}

/** The id Fastify gave `req` (withRequestId), if any. */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID];
}

/** True once closeAfterLatest was called on the connection: a request read from it now is not run. */
export function isClosing(socket: Socket): boolean {
  return (socket as TrackedSocket)[CLOSING] === true;
}

/**
 * Close the connection once the answer to its latest request so far has been written (call it while
 * an answer on it is pending: see pendingLatest). Requests already read from it are answered; one
 * read after this is refused unrun (the onRequest hook, isClosing), since its answer could come
 * after the connection has closed.
 */
export function closeAfterLatest(socket: Socket): void {
  const tracked = socket as TrackedSocket;
  tracked[CLOSING] = true;
  const latest = tracked[LATEST];
  // Headers not made yet: the answer itself says so, and Node ends the socket after it.
  if (latest !== undefined && !latest.headersSent) latest.shouldKeepAlive = false;
}
