/**
 * A TCP proxy for store-fault tests: a node:net server on 127.0.0.1 that pipes every connection
 * to a target (the shared PostgreSQL). `cut()` makes the database disappear for whoever connects
 * through the proxy only — other tests keep using the real server — and `restore()` brings it back.
 *
 * Cut modes:
 * - `refuse`: every piped connection is destroyed and the listener closes, so new connections get
 *   ECONNREFUSED — what clients see when the PostgreSQL server is stopped.
 * - `reset`: every piped connection is destroyed; new ones are accepted and closed at once.
 * - `blackhole`: every piped connection is destroyed; new ones are accepted and never answered —
 *   a network partition, where only the client's own timeouts help.
 * - `freeze`: like `blackhole`, but piped connections stay open and silently stop passing bytes
 *   either way — a partition the client's open connection does not notice (no reset, no close),
 *   so commands written on it wait for answers that never come. `restore()` destroys them (what
 *   they carried meanwhile is lost) and clients reconnect.
 *
 * `loseNext(marker, what, options)` cuts the one connection whose next client bytes contain `marker`
 * (e.g. a COMMIT), on a connection that has sent `options.after` before, if given: `"reply"`
 * delivers those bytes to the target and drops the connection before its answer reaches the
 * client; `"request"` drops it before the bytes reach the target; `"silence"` swallows those bytes
 * and everything after them either way while both ends stay open (that one connection black-holed:
 * the server's session waits, holding what its transaction locked). `options.onCut` runs at the cut.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export type CutMode = "refuse" | "reset" | "blackhole" | "freeze";
export type LoseWhat = "reply" | "request" | "silence";

export interface LoseOptions {
  /** Only on a connection that has already sent bytes containing this. */
  after?: string;
  /** Called when the cut happens (e.g. to take the whole target away at that moment). */
  onCut?: () => void;
}

export interface TcpProxy {
  /** Port the proxy listens on (stable across cut/restore). */
  port: number;
  /** Current state. */
  readonly state: "up" | CutMode;
  /** Connections accepted since start. */
  readonly accepted: number;
  /** Drop (or, for `freeze`, silence) every connection and stop serving new ones as `mode` says (default `refuse`). */
  cut(mode?: CutMode): Promise<void>;
  /** Pipe new connections to the target again. */
  restore(): Promise<void>;
  /** Cut the next connection that sends `marker`, losing that message's reply or the message itself. */
  loseNext(marker: string, what: LoseWhat, options?: LoseOptions): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let state: "up" | CutMode = "up";
  let accepted = 0;
  let port = 0;
  let armed: { marker: Buffer; what: LoseWhat; after: Buffer | null; onCut?: () => void } | null = null;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // Resets are the point of this proxy; never let them surface as uncaught errors.
    socket.on("error", () => undefined);
  };

  const onConnection = (client: Socket) => {
    accepted++;
    track(client);
    if (state === "reset") {
      client.resetAndDestroy();
      return;
    }
    if (state === "blackhole" || state === "freeze") return; // held open, never answered
    const upstream = connect(target.port, target.host);
    track(upstream);
    let replyLost = false;
    let silenced = false;
    let sawAfter = false;
    client.on("data", (chunk: Buffer) => {
      if (state === "freeze" || silenced) return; // swallowed: the target never sees it
      const hit =
        armed !== null && (armed.after === null || sawAfter) && chunk.includes(armed.marker) ? armed : null;
      if (armed?.after && chunk.includes(armed.after)) sawAfter = true;
      const cut = hit?.what ?? null;
      if (hit !== null) armed = null;
      if (cut === "silence") {
        silenced = true;
        hit?.onCut?.();
        return;
      }
      if (cut !== "request") upstream.write(chunk);
      if (cut === null) return;
      // The client sees its connection drop now; the target keeps its end until it has answered
      // (lost) or given up, so a delivered message is processed as a real server would.
      replyLost = cut === "reply";
      client.destroy();
      if (!replyLost) upstream.destroy();
      else setTimeout(() => upstream.destroy(), 2000).unref();
      hit?.onCut?.();
    });
    upstream.on("data", (chunk: Buffer) => {
      if (state === "freeze" || silenced) return; // swallowed: the client never sees it
      if (replyLost) upstream.destroy();
      else client.write(chunk);
    });
    // A silenced connection is black-holed: neither end learns that the other closed.
    client.on("close", () => {
      if (!replyLost && !silenced) upstream.destroy();
    });
    upstream.on("close", () => {
      if (!silenced) client.destroy();
    });
  };

  let server: Server = createServer(onConnection);
  const listen = (s: Server, p: number) =>
    new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(p, "127.0.0.1", () => {
        s.off("error", reject);
        resolve();
      });
    });
  const closeServer = (s: Server) =>
    new Promise<void>((resolve) => {
      if (!s.listening) resolve();
      else s.close(() => resolve());
    });
  const destroyAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };

  await listen(server, 0);
  const address = server.address();
  port = typeof address === "object" && address ? address.port : 0;

  return {
    port,
    get state() {
      return state;
    },
    get accepted() {
      return accepted;
    },
    async cut(mode: CutMode = "refuse") {
      state = mode;
      if (mode !== "freeze") destroyAll();
      if (mode === "refuse") await closeServer(server);
    },
    loseNext(marker: string, what: LoseWhat, options: LoseOptions = {}) {
      armed = {
        marker: Buffer.from(marker),
        what,
        after: options.after === undefined ? null : Buffer.from(options.after),
        ...(options.onCut ? { onCut: options.onCut } : {}),
      };
    },
    async restore() {
      if (state === "refuse") {
        server = createServer(onConnection);
        await listen(server, port);
      }
      // Connections held by a blackhole never reached the target, and frozen ones lost bytes either
      // way: drop them, clients reconnect.
      if (state === "blackhole" || state === "freeze") destroyAll();
      state = "up";
    },
    async close() {
      state = "refuse";
      destroyAll();
      await closeServer(server);
    },
  };
}
