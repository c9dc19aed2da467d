/**
 * Closing connections during a graceful drain without losing an answer.
 *
 * While draining, connections must close once their answers are out, or keep-alive sockets would
 * hold the exit until the grace period ends. A client that pipelines sends a second request before
 * the first answer is back; Node runs both, queues the second answer behind the first and discards
 * it if the first one closed the connection, so that call would be charged and never answered.
 *
 * So requests are numbered per connection, and only the connection's latest request closes it:
 * its answer carries `Connection: close` (Node ends the socket after writing it), and once it has
 * been written the socket is ended in any case (an answer written keep-alive before the drain began
 * may be the last one out). Node writes answers in request order, so nothing is queued behind it. A
 * request that arrives later is refused by Fastify with 503 before it runs, at no charge.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

const STARTED = Symbol("quarry.requestsOnConnection");
const ORDINAL = Symbol("quarry.requestOrdinal");

type CountedSocket = IncomingMessage["socket"] & { [STARTED]?: number };
type CountedRequest = IncomingMessage & { [ORDINAL]?: number };

/** True unless a later request has arrived on the same connection (or the request was not counted). */
export function isLatestOnConnection(req: IncomingMessage): boolean {
  const ordinal = (req as CountedRequest)[ORDINAL];
  return ordinal === undefined || ordinal === (req.socket as CountedSocket)[STARTED];
}

export interface Drain {
  /** From now on, each connection closes after the answer to its latest request. */
  begin(): void;
}

/** Number requests per connection (before Fastify sees them) and close connections while draining. */
export function installDrain(app: FastifyInstance): Drain {
  let draining = false;
  app.server.prependListener("request", (req: CountedRequest) => {
    const socket = req.socket as CountedSocket;
    const n = (socket[STARTED] ?? 0) + 1;
    socket[STARTED] = n;
    req[ORDINAL] = n;
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    if (draining && isLatestOnConnection(request.raw)) reply.header("connection", "close");
    done(null, payload);
  });
  app.addHook("onResponse", (request, _reply, done) => {
    if (draining && isLatestOnConnection(request.raw)) {
      const socket = request.raw.socket;
      if (!socket.destroyed && !socket.writableEnded) socket.destroySoon();
    }
    done();
  });
  return {
    begin() {
      draining = true;
    },
  };
}
