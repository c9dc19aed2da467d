/**
 * A Serper stand-in for web.search and news.search tests: it serves the project's recorded Serper
 * bodies (fixtures/providers/serper) chosen by the JSON body's `q`, which the replay upstream
 * cannot do (it matches method, path and query string, never a POST body). It keeps every request
 * (path, headers, parsed body) so tests can check what Quarry sent.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fixtureText } from "./capability-kit.ts";

export interface SerperStub {
  /** `http://127.0.0.1:<port>/serper`: the value for SERPER_BASE_URL. */
  baseUrl: string;
  requests: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** `routes[path][q]` is the recording that answers; a query with none answers Serper's 400. */
export async function startSerperStub(routes: Record<string, Record<string, string>>): Promise<SerperStub> {
  const requests: SerperStub["requests"] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString("utf8");
    });
    req.on("end", () => {
      const path = (req.url ?? "/").replace(/^\/serper/, "").split("?")[0]!;
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      requests.push({ path, headers: req.headers, body });
      const file = routes[path]?.[String(body.q)];
      const text = file === undefined ? JSON.stringify({ message: "Query not recorded", statusCode: 400 }) : fixtureText("serper", file);
      res.writeHead(file === undefined ? 400 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/serper`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
