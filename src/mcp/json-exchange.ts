/**
 * One POST /mcp answered with one JSON body, without the SDK's Streamable HTTP transport: the SDK's
 * Server still parses, dispatches and answers every message (its Protocol is unchanged), but the HTTP
 * side is this module's. The SDK's transport converts each Node request to a web `Request` and its
 * answer back (@hono/node-server), checks every outgoing message with zod and keeps maps for streams
 * a JSON answer never has: about a sixth of an MCP call's event-loop time (docs/performance.md, "MCP
 * as fast as REST"). A call that asked for progress still goes through the SDK's transport, which
 * answers with an event stream (progress.ts).
 *
 * The HTTP checks are the SDK's (webStandardStreamableHttp.js, handlePostRequest, stateless and JSON
 * mode), in its order and with its status codes and messages, so a client cannot tell the two apart:
 * Accept (406), Content-Type (415), JSON (-32700), batch size (-32600), JSON-RPC shape (-32700), one
 * initialize alone (-32600), MCP-Protocol-Version (400), only notifications and responses (202).
 * test/mcp.test.ts holds each of them.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

/** The SDK's bound on one batch (server/requestBody.js). */
const MAX_BATCH_SIZE = 100;

/** An answer made at the transport: an HTTP status and, unless 202, a JSON-RPC error body. */
export interface TransportAnswer {
  status: number;
  body?: string;
}

function refusal(status: number, code: number, message: string): TransportAnswer {
  return { status, body: JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }) };
}

/**
 * The request's messages, checked as the SDK's transport checks them, or the answer it would give.
 * `parsed` is the body as parseMessage read it (undefined when it was not JSON).
 */
export function admitMessages(headers: IncomingHttpHeaders, parsed: unknown): JSONRPCMessage[] | TransportAnswer {
  const accept = headers.accept;
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream"))
    return refusal(406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream");
  if (!isJsonContentType(headers["content-type"])) return refusal(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  if (parsed === undefined) return refusal(400, -32700, "Parse error: Invalid JSON");
  if (Array.isArray(parsed) && parsed.length > MAX_BATCH_SIZE)
    return refusal(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  let messages: JSONRPCMessage[];
  try {
    messages = Array.isArray(parsed) ? parsed.map((m) => JSONRPCMessageSchema.parse(m)) : [JSONRPCMessageSchema.parse(parsed)];
  } catch {
    return refusal(400, -32700, "Parse error: Invalid JSON-RPC message");
  }
  if (messages.some(isInitializeRequest)) {
    if (messages.length > 1) return refusal(400, -32600, "Invalid Request: Only one initialization request is allowed");
  } else {
    const version = headers["mcp-protocol-version"];
    if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return refusal(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
      );
    }
  }
  return messages;
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => "method" in m && "id" in m;
const isAnswer = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => "id" in m && ("result" in m || "error" in m);

/**
 * The SDK Transport for one exchange: `deliver` hands the messages to the connected Server and
 * resolves with the body once every request among them is answered (a lone answer as itself, several
 * as an array, as the SDK's transport writes them), or with 202 when there are none. Notifications
 * the Server sends while working (progress) have nowhere to go in a JSON answer and are dropped, as
 * the SDK's transport drops them in JSON mode.
 */
export class JsonExchange implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  /** The requests' ids, each once, in the order they came (a repeated id is answered once, as by the SDK). */
  private readonly ids = new Set<RequestId>();
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private done?: (answer: TransportAnswer | undefined) => void;
  private closed = false;

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves with the answer, or with undefined when the exchange was closed first (the client left). */
  deliver(messages: JSONRPCMessage[], headers: IncomingHttpHeaders): Promise<TransportAnswer | undefined> {
    for (const m of messages) if (isRequest(m)) this.ids.add(m.id);
    const requestInfo = { headers };
    if (this.ids.size === 0) {
      for (const m of messages) this.onmessage?.(m, { requestInfo });
      return Promise.resolve({ status: 202 });
    }
    return new Promise((resolve) => {
      this.done = resolve;
      for (const m of messages) this.onmessage?.(m, { requestInfo });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const done = this.done;
    if (!isAnswer(message) || done === undefined || !this.ids.has(message.id)) return Promise.resolve();
    this.answers.set(message.id, message);
    if (this.answers.size < this.ids.size) return Promise.resolve();
    const answers = [...this.ids].map((id) => this.answers.get(id));
    this.done = undefined;
    done({ status: 200, body: JSON.stringify(answers.length === 1 ? answers[0] : answers) });
    return Promise.resolve();
  }

  /** The client left: the Server's handlers in flight are aborted (nothing they do is answered). */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const done = this.done;
    this.done = undefined;
    this.onclose?.();
    done?.(undefined);
    return Promise.resolve();
  }
}
