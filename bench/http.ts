/**
 * Plain HTTP calls the bench makes outside autocannon: sanity checks before each scenario,
 * creating sessions, and the sequential latency runs of the scale figure.
 */
import { Agent, request } from "undici";

/** One keep-alive connection, so sequential calls measure the server rather than connecting. */
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

export interface JsonResponse {
  status: number;
  body: unknown;
  /** Time to the end of the body, in milliseconds. */
  ms: number;
}

export async function postJson(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const started = process.hrtime.bigint();
  const res = await request(base + path, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Keep the text: the caller reports it.
  }
  return { status: res.statusCode, body: parsed, ms };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** A field of a JSON object by path of keys and indexes; undefined when absent. */
export function pick(value: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = value;
  for (const step of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return cur;
}

/** Throw with the answer's status and a slice of its body unless it is a 200. */
export function expectOk(what: string, res: JsonResponse): void {
  if (res.status !== 200) {
    throw new Error(`${what}: expected 200, got ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
  }
}

export async function closeHttp(): Promise<void> {
  await agent.close();
}
