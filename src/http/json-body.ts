/**
 * The JSON body parser of the REST routes, in place of Fastify's default, so that a refused body
 * says why and where:
 * - not JSON: 400 invalid_request whose message carries the parser's own (position, line, column);
 * - a key that could reach an object's prototype (`__proto__`, or a `constructor` object holding a
 *   `prototype` key, also when spelled with `\u` escapes): 400 with one violation per key, its
 *   JSON pointer as the path, as for any unknown key. Such bodies are refused here, before any
 *   handler (an `update` merges the new params into the stored query before validating them);
 * - no body: 400 "empty";
 * - a Content-Encoding other than identity: 400 (bodies are read uncompressed).
 * Requests to a route that does not exist are not parsed at all: they get 404 not_found whatever
 * their body (error-handler.ts).
 */
import type { FastifyRequest } from "fastify";
import { ApiError, invalidRequest, pointerToken, type Violation } from "../errors.ts";

/** The hint of every refusal of a request body (here and error-handler.ts). */
export const BODY_HINT = "Send a JSON object with Content-Type: application/json.";

function refuse(message: string): ApiError {
  return new ApiError("invalid_request", message, { violations: [{ path: "", message }], hint: BODY_HINT });
}

/**
 * Whether a body's text could spell a key that reaches a prototype (`__proto__`, `prototype`, or
 * either with `\u` escapes): when it cannot, no parsed value of it needs walking.
 */
export function maySpellPrototypeKeys(text: string): boolean {
  return text.includes("__proto__") || text.includes("prototype") || text.includes("\\u");
}

/** Whether `key` with value `child` could set or reach a prototype: `__proto__`, or `constructor` holding `prototype`. */
export function isPrototypeKey(key: string, child: unknown): boolean {
  if (key === "__proto__") return true;
  return key === "constructor" && typeof child === "object" && child !== null && Object.hasOwn(child, "prototype");
}

/** A key of a parsed body that could set or reach a prototype, where it is. */
interface PrototypeKey {
  /** The object holding it. */
  holder: Record<string, unknown>;
  key: string;
  /** Its violation (pointer and message), as poisonedKeys answers it. */
  violation: Violation;
}

/**
 * Every key of `root` that could set or reach a prototype, in document order. Iterative: a body may
 * nest deeper than the call stack (a recursive walk, or a `JSON.parse` reviver, does not survive it).
 */
function prototypeKeys(root: unknown): PrototypeKey[] {
  const found: PrototypeKey[] = [];
  // Entries are values to look into, or a found key; popped in document order.
  const stack: ({ value: unknown; path: string } | PrototypeKey)[] = [{ value: root, path: "" }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ("violation" in next) {
      found.push(next);
      continue;
    }
    const { value, path } = next;
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}/${i}` });
      continue;
    }
    const holder = value as Record<string, unknown>;
    const keys = Object.keys(holder);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const child = holder[key];
      const at = `${path}/${pointerToken(key)}`;
      if (!isPrototypeKey(key, child)) stack.push({ value: child, path: at });
      else if (key === "__proto__") stack.push({ holder, key, violation: { path: at, message: 'a key named "__proto__" is refused' } });
      else stack.push({ holder, key, violation: { path: `${at}/prototype`, message: 'a "prototype" key inside "constructor" is refused' } });
    }
  }
  return found;
}

/** The keys of `root` that could set or reach a prototype, as violations. Only called when the text could spell such a key. */
export function poisonedKeys(root: unknown): Violation[] {
  return prototypeKeys(root).map((k) => k.violation);
}

/** Delete, in place, every key of `root` that could set or reach a prototype (those poisonedKeys names). */
export function dropPrototypeKeys(root: unknown): void {
  for (const { holder, key } of prototypeKeys(root)) delete holder[key];
}

/** Parse a request body's text; throws ApiError invalid_request as described above. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw refuse("The body is empty; send a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refuse(`The body is not valid JSON: ${(error as Error).message}.`);
  }
  // JSON.parse makes "__proto__" an own data property (it never sets a prototype), so the check can
  // run on the parsed value; it is skipped when the text cannot spell either key.
  if (maySpellPrototypeKeys(text)) {
    const poisoned = poisonedKeys(value);
    if (poisoned.length > 0) throw invalidRequest(poisoned, "The body holds keys that are refused.");
  }
  return value;
}

/** Fastify content-type parser (parseAs "string") for application/json. */
export function jsonBodyParser(request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void): void {
  // No route: nothing reads the body, and the answer is 404 whatever it holds.
  if (request.is404) {
    done(null, undefined);
    return;
  }
  // The body is read as sent: a compressed one would fail as "not JSON", and one merely labelled
  // compressed would pass; either way the label and the bytes disagree with what is read.
  const encoding = request.headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    done(refuse(`Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not accepted; send the body uncompressed.`));
    return;
  }
  let value: unknown;
  try {
    value = parseJsonBody(body);
  } catch (error) {
    done(error as Error);
    return;
  }
  done(null, value);
}
