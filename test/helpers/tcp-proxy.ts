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
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export type CutMode = "refuse" | "reset" | "blackhole";

export interface TcpProxy {
  /** Port the proxy listens on (stable across cut/restore). */
  port: number;
  /** Current state. */
  readonly state: "up" | CutMode;
  /** Connections accepted since start. */
  readonly accepted: number;
  /** Drop every connection and stop serving new ones as `mode` says (default `refuse`). */
  cut(mode?: CutMode): Promise<void>;
  /** Pipe new connections to the target again. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let state: "up" | CutMode = "up";
  let accepted = 0;
  let port = 0;

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
    if (state === "blackhole") return; // held open, never answered
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", drop);
    upstream.on("close", drop);
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
      destroyAll();
      if (mode === "refuse") await closeServer(server);
    },
    async restore() {
      if (state === "refuse") {
        server = createServer(onConnection);
        await listen(server, port);
      }
      // Connections held by a blackhole never reached the target: drop them, clients reconnect.
      if (state === "blackhole") destroyAll();
      state = "up";
    },
    async close() {
      state = "refuse";
      destroyAll();
      await closeServer(server);
    },
  };
}
