/**
 * The local "replay upstream": one plain node:http server that answers every provider's requests
 * with recorded responses (see fixture-index.ts), plus injectable faults for reliability tests.
 * Tests, the offline demo and the benchmarks point every provider base URL at it (replay-env.ts).
 *
 * Bodies are loaded once at start and served from memory: benchmarks run through this server,
 * so the request path does no file I/O and allocates little. A recording with a `window` answers
 * the offset pages inside the items it holds with just those items (fixture-index.ts pageBody).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type FixtureEntry, type FixtureIndex, loadFixtureIndex, pageBody } from "./fixture-index.ts";
import { unheldParams } from "./held-params.ts";
import { REPLAY_MISS_HEADER, UNHELD_HEADER, unheldHeader } from "./replay-headers.ts";

/** An injected failure. `times` limits it to the next N requests it applies to, then it clears. */
export type Fault = (
  | { kind: "latency"; ms: number }
  | { kind: "hang" }
  | { kind: "reset" }
  | { kind: "truncate" }
  /** An answer of this status (a provider's 5xx, a refused key's 401 or 403…), with `body` (JSON or text) or a small JSON one. */
  | { kind: "status"; status: number; body?: string }
  | { kind: "rate_limit"; retryAfterSeconds: number }
  | { kind: "invalid_json" }
  /** A valid JSON body of exactly `bytes` bytes, streamed; `chunked` omits content-length. */
  | { kind: "oversized"; bytes: number; chunked?: boolean }
  /**
   * A provider that changed its answer: the recording served with the key at the JSON pointer
   * `pointer` (`/results/0/id`) renamed to `to` (drift tests, `quarry providers check`'s tests).
   */
  | { kind: "rename"; pointer: string; to: string }
  /** The same for text answers (HTML, XML): every occurrence of `find` in the recording replaced by `with`. */
  | { kind: "replace"; find: string; with: string }
) & { times?: number };

/** `body` (JSON) with the key at `pointer` renamed to `to`; unchanged when the pointer names nothing. */
export function renameAt(body: Buffer, pointer: string, to: string): Buffer {
  const value: unknown = JSON.parse(body.toString("utf8"));
  const parts = pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const key = parts.pop();
  let at: unknown = value;
  for (const part of parts) at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  if (key === undefined || typeof at !== "object" || at === null || !(key in at)) return body;
  const holder = at as Record<string, unknown>;
  // Rebuilt in order, so the renamed key keeps its place.
  const entries = Object.entries(holder).map(([k, v]) => [k === key ? to : k, v] as const);
  for (const k of Object.keys(holder)) delete holder[k];
  for (const [k, v] of entries) holder[k] = v;
  return Buffer.from(JSON.stringify(value));
}

export interface RecordedRequest {
  method: string;
  /** Full request path (prefix included), without the query string. */
  path: string;
  /** First path segment, e.g. `deezer`. */
  prefix: string;
  /** Query params; the first value when a param repeats (`rawQuery` has everything). */
  query: Record<string, string>;
  rawQuery: string;
  headers: IncomingHttpHeaders;
  /** Request body as UTF-8 text ("" when none). */
  body: string;
  /** `<folder>/<case>` of the recording served, or null when none matched or a fault answered. */
  matched: string | null;
  /** Fault kind applied, if any. */
  fault: Fault["kind"] | null;
  /** What of the request the recording served was not made with (held-params.ts); [] when none. */
  unheld: string[];
  at: number;
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  /** The last `requestLog` (REQUEST_LOG_LIMIT) requests, oldest first. Mutated in place; clear with `length = 0`. */
  requests: RecordedRequest[];
  /** The loaded recordings (for callers that build requests from them). */
  index: FixtureIndex;
  /** Sets (or with null clears) the fault for a prefix (`deezer` or `/deezer`), or `*` for all. */
  setFault(prefix: string, fault: Fault | null): void;
  close(): Promise<void>;
}

export interface ReplayOptions {
  fixturesDir?: string;
  port?: number;
  host?: string;
  /** Added before every answer, to make the replay look like a network upstream. */
  latencyMs?: number;
  /**
   * How many of the latest requests `requests` keeps (default REQUEST_LOG_LIMIT; 0 keeps none). The
   * benchmark keeps none: a provider's own bookkeeping is not in the gateway's process, and here a
   * log of the last 1,000 requests held each record past two scavenges at bench rates, so V8
   * promoted them and, through them, other requests' objects (docs/performance.md).
   */
  requestLog?: number;
}

export const REQUEST_LOG_LIMIT = 1000;

const JSON_TYPE = "application/json";
const OVERSIZED_CHUNK = 64 * 1024;

interface ActiveFault {
  fault: Fault;
  remaining: number;
}

/** A request body as JSON, or undefined (POST recordings may match parts of it). */
function jsonOf(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** Query as name -> all values; the matcher needs every value, the log only the first. */
function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (raw === "") return out;
  for (const [k, v] of new URLSearchParams(raw)) {
    const list = out.get(k);
    if (list === undefined) out.set(k, [v]);
    else list.push(v);
  }
  return out;
}

/** `{"padding":"xxx…"}` of exactly `bytes` bytes, so only a size limit (not the parser) rejects it. */
function oversizedChunks(bytes: number): { head: Buffer; fill: Buffer; fillCount: number; tail: Buffer } {
  const head = Buffer.from('{"padding":"');
  const tail = Buffer.from('"}');
  if (bytes < head.length + tail.length) {
    // Too small for the envelope: a whitespace-padded number is still valid JSON.
    const text = bytes <= 0 ? "" : `${" ".repeat(bytes - 1)}0`;
    return { head: Buffer.from(text), fill: Buffer.alloc(0), fillCount: 0, tail: Buffer.alloc(0) };
  }
  return {
    head,
    fill: Buffer.alloc(OVERSIZED_CHUNK, "x"),
    fillCount: bytes - head.length - tail.length,
    tail,
  };
}

export async function startReplay(options: ReplayOptions = {}): Promise<ReplayServer> {
  const index = loadFixtureIndex(options.fixturesDir);
  const host = options.host ?? "127.0.0.1";
  const baseLatency = options.latencyMs ?? 0;
  const requests: RecordedRequest[] = [];
  const logLimit = options.requestLog ?? REQUEST_LOG_LIMIT;
  const faults = new Map<string, ActiveFault>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;

  // Precomputed headers per recording: the hot path only picks them up.
  const headersByEntry = new Map<FixtureEntry, Record<string, string | number>>();
  for (const entry of index.entries) {
    headersByEntry.set(entry, {
      // A recording's own headers (a redirect's `location`); the replay's own win.
      ...entry.headers,
      "content-type": entry.contentType,
      "content-length": entry.body.length,
      "x-replay-case": entry.id,
    });
  }

  function later(ms: number, fn: () => void): void {
    // Tracked so close() can cancel pending answers instead of writing to destroyed sockets.
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  }

  /** The fault for this request's prefix (specific before `*`), consuming one of its `times`. */
  function takeFault(segment: string, resolved: string | undefined): Fault | undefined {
    for (const key of [segment, resolved, "*"]) {
      if (key === undefined) continue;
      const active = faults.get(key);
      if (active === undefined) continue;
      if (active.remaining !== Number.POSITIVE_INFINITY) {
        active.remaining -= 1;
        if (active.remaining <= 0) faults.delete(key);
      }
      return active.fault;
    }
    return undefined;
  }

  function log(record: RecordedRequest): void {
    if (logLimit === 0) return;
    requests.push(record);
    if (requests.length > logLimit) requests.splice(0, requests.length - logLimit);
  }

  function send(
    res: ServerResponse,
    status: number,
    headers: Record<string, string | number>,
    body: Buffer,
  ): void {
    if (res.destroyed) return;
    res.writeHead(status, headers);
    res.end(body);
  }

  function sendJson(
    res: ServerResponse,
    status: number,
    value: unknown,
    extra: Record<string, string> = {},
  ): void {
    const body = jsonBody(value);
    send(res, status, { "content-type": JSON_TYPE, "content-length": body.length, ...extra }, body);
  }

  function answerNormally(
    res: ServerResponse,
    record: RecordedRequest,
    entry: FixtureEntry | undefined,
    body: Buffer | undefined,
  ): void {
    const unheld = record.unheld;
    if (entry === undefined) {
      sendJson(res, 404, { error: "no recorded response", method: record.method, path: record.path }, { [REPLAY_MISS_HEADER]: "1" });
      return;
    }
    if (body === undefined) {
      // A windowed recording asked for a page beyond the items it holds.
      const held = `${entry.window!.recordedOffset}-${entry.window!.recordedOffset + entry.window!.list.length - 1}`;
      sendJson(res, 404, { error: "no recorded response for this page", recording: entry.id, items_held: held }, { [REPLAY_MISS_HEADER]: "1" });
      return;
    }
    const headers = headersByEntry.get(entry)!;
    if (body === entry.body && unheld.length === 0) {
      send(res, entry.status, headers, body);
      return;
    }
    send(res, entry.status, {
      ...headers,
      "content-length": body.length,
      ...(unheld.length === 0 ? {} : { [UNHELD_HEADER]: unheldHeader(unheld) }),
    }, body);
  }

  function streamOversized(res: ServerResponse, bytes: number, chunked: boolean): void {
    const { head, fill, fillCount, tail } = oversizedChunks(bytes);
    const headers: Record<string, string | number> = { "content-type": JSON_TYPE };
    if (!chunked) headers["content-length"] = Math.max(bytes, 0);
    res.writeHead(200, headers);
    res.write(head);
    let left = fillCount;
    // Honour backpressure: a multi-megabyte body must not be buffered in memory at once.
    const pump = (): void => {
      while (left > 0) {
        if (res.destroyed) return;
        const n = Math.min(left, fill.length);
        left -= n;
        if (!res.write(n === fill.length ? fill : fill.subarray(0, n))) {
          res.once("drain", pump);
          return;
        }
      }
      if (!res.destroyed) res.end(tail);
    };
    pump();
  }

  function applyFault(
    fault: Fault,
    req: IncomingMessage,
    res: ServerResponse,
    record: RecordedRequest,
    entry: FixtureEntry | undefined,
    page: Buffer | undefined,
  ): void {
    switch (fault.kind) {
      case "latency":
        later(fault.ms, () => {
          record.matched = page === undefined ? null : (entry?.id ?? null);
          answerNormally(res, record, entry, page);
        });
        return;
      case "hang":
        // Nothing is written; the socket stays tracked and close() destroys it.
        return;
      case "reset": {
        const socket = req.socket;
        // A real TCP RST where the platform allows it; a plain destroy otherwise.
        if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
        else socket.destroy();
        return;
      }
      case "truncate": {
        const body = page ?? jsonBody({ error: "no recorded response", path: record.path });
        const served = page === undefined ? undefined : entry;
        const headers = served !== undefined ? headersByEntry.get(served)! : { "content-type": JSON_TYPE };
        res.writeHead(served?.status ?? 200, { ...headers, "content-length": body.length });
        const half = body.subarray(0, Math.floor(body.length / 2));
        // Destroy only once the half is handed to the kernel, so the client sees a short body.
        res.write(half, () => req.socket.destroy());
        return;
      }
      case "status": {
        if (fault.body === undefined) {
          sendJson(res, fault.status, { error: "injected fault", status: fault.status });
        } else {
          const body = Buffer.from(fault.body);
          const type = /^\s*[[{]/.test(fault.body) ? JSON_TYPE : "text/plain; charset=utf-8";
          send(res, fault.status, { "content-type": type, "content-length": body.length }, body);
        }
        return;
      }
      case "rate_limit":
        sendJson(
          res,
          429,
          { error: "rate limited", retry_after: fault.retryAfterSeconds },
          { "retry-after": String(fault.retryAfterSeconds) },
        );
        return;
      case "invalid_json": {
        const body = Buffer.from('{"oops": ');
        send(res, 200, { "content-type": JSON_TYPE, "content-length": body.length }, body);
        return;
      }
      case "oversized":
        streamOversized(res, fault.bytes, fault.chunked === true);
        return;
      case "rename":
      case "replace": {
        record.matched = page === undefined ? null : (entry?.id ?? null);
        const changed =
          page === undefined
            ? undefined
            : fault.kind === "rename"
              ? renameAt(page, fault.pointer, fault.to)
              : Buffer.from(page.toString("utf8").split(fault.find).join(fault.with));
        answerNormally(res, record, entry, changed);
        return;
      }
    }
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const rawQuery = q === -1 ? "" : url.slice(q + 1);
    const query = parseQuery(rawQuery);
    const slash = path.indexOf("/", 1);
    const segment = slash === -1 ? path.slice(1) : path.slice(1, slash);
    const rest = slash === -1 ? "/" : path.slice(slash);
    const prefix = index.resolvePrefix(segment);
    const method = req.method ?? "GET";
    const parsedBody = jsonOf(body);
    const entry = prefix === undefined ? undefined : index.match(prefix, method, rest, query, parsedBody)?.entry;
    // The recording's body, or the page of it this request asks for (undefined: a page not held).
    const page = entry === undefined ? undefined : pageBody(entry, query);

    const firstValues: Record<string, string> = {};
    for (const [k, v] of query) firstValues[k] = v[0] ?? "";
    const fault = faults.size === 0 ? undefined : takeFault(segment, prefix);
    const record: RecordedRequest = {
      method,
      path,
      prefix: segment,
      query: firstValues,
      rawQuery,
      headers: req.headers,
      body,
      matched: fault === undefined && page !== undefined ? (entry?.id ?? null) : null,
      fault: fault?.kind ?? null,
      unheld: entry === undefined || page === undefined ? [] : unheldParams(entry, query, parsedBody, rest),
      at: Date.now(),
    };
    log(record);

    if (fault !== undefined) applyFault(fault, req, res, record, entry, page);
    else answerNormally(res, record, entry, page);
  }

  // Long request lines are answered, as providers' servers answer them: the client's own cap
  // (UPSTREAM_MAX_URL_BYTES, 32 KiB) is what refuses longer ones, not a reset from Node's 16 KiB default.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (closing) return;
      const body = chunks.length === 0 ? "" : Buffer.concat(chunks).toString("utf8");
      if (baseLatency > 0) later(baseLatency, () => handle(req, res, body));
      else handle(req, res, body);
    });
  });
  // Tests and benchmarks reuse connections; no per-request timeouts here, faults decide timing.
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 0;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // Clients that abort mid-request produce parse/reset errors; they are expected, not failures.
  server.on("clientError", (_err, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests,
    index,
    setFault(prefix: string, fault: Fault | null): void {
      const key = prefix === "*" ? "*" : prefix.replace(/^\/+|\/+$/g, "");
      if (fault === null) {
        faults.delete(key);
        return;
      }
      const times = fault.times ?? Number.POSITIVE_INFINITY;
      if (times <= 0) faults.delete(key);
      else faults.set(key, { fault, remaining: times });
    },
    close(): Promise<void> {
      if (closing) return Promise.resolve();
      closing = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hung and keep-alive sockets would otherwise hold server.close() (and the test process) open.
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
    },
  };
}
