/**
 * HTTP/1.1 by hand over one TCP connection, for the tests that need what a client library hides:
 * pipelined requests, bytes that are not HTTP, a body sent in parts, and when the server closes.
 */
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  status: number;
  /** The status line and header lines as sent. */
  head: string;
  /** Header values by lower-case name. */
  headers: Record<string, string>;
  /** The body, decoded as UTF-8. */
  body: string;
}

/**
 * The complete answers in a byte stream read as latin1 (one character a byte), split by their
 * Content-Length, and what follows the last of them (a cut answer, or bytes that are no answer).
 */
export function splitAnswers(text: string): { answers: RawAnswer[]; rest: string } {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const head = text.slice(at, end);
    const [statusLine = "", ...lines] = head.split("\r\n");
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
    );
    const length = Number(headers["content-length"] ?? 0);
    if (end + 4 + length > text.length) break;
    const body = Buffer.from(text.slice(end + 4, end + 4 + length), "latin1").toString("utf8");
    answers.push({ status: Number(statusLine.split(" ")[1]), head, headers, body });
    at = end + 4 + length;
  }
  return { answers, rest: text.slice(at) };
}

export interface RawConnection {
  socket: Socket;
  /** Everything received so far, latin1. */
  received(): string;
  /** Resolves once the connection has closed, for whatever reason (errors are not raised). */
  closed: Promise<void>;
}

/** A connection that collects what it receives; write requests to `socket` (before or after connecting). */
export function openRaw(port: number, host = "127.0.0.1"): RawConnection {
  const socket = connect(port, host);
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    text += chunk;
  });
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => text, closed };
}
