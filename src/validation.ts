/**
 * One validator for every body (REST and MCP alike): Ajv over the TypeBox schemas, all errors,
 * server-side defaults, no coercion. Ajv errors become spec violations with JSON pointers:
 * an unknown key points at the key itself, a missing one at where it belongs.
 */
import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { pointer, type Violation } from "./errors.ts";
import { didYouMean } from "./suggest.ts";

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// `verbose` keeps each error's schema so a union of constants can be reported as one "must be one of".
// `discriminator` validates a tagged union (`oneOf` with `discriminator`) against its own branch only,
// applying that branch's defaults (capabilities/framework/fields.ts, `taggedUnion`).
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false, messages: true, verbose: true, discriminator: true });
addFormats(ajv);

const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: TSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/**
 * "Not blank" (SPEC 4.6): a string that holds at least one character a person can see. Blank are
 * whitespace (`\s`, which includes U+FEFF), control characters and the invisible formatting and
 * filler characters (soft hyphen, zero-width space and joiners, direction marks and embeddings, word
 * joiner and invisible operators, variation selectors, Hangul fillers, Mongolian selectors).
 * Written with `\u` escapes only, no `\p{…}`, so the published pattern means the same to a client
 * that compiles it without the `u` flag.
 */
export const NOT_BLANK_PATTERN =
  "[^\\s\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f" +
  "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\uffa0]";

/**
 * The refusal of an unknown field, naming the fields accepted there (and the one it most likely
 * meant, if one is clear) so one correction is enough.
 */
export function unknownFieldMessage(key: string, accepted: readonly string[]): string {
  const refused = `unknown field "${key}"${didYouMean(key, accepted)}`;
  return accepted.length > 0 ? `${refused}; fields: ${accepted.join(", ")}` : refused;
}

/** "must be one of …", with the value it most likely meant when a string was sent (`"1d"` for `"1D"`). */
function oneOfMessage(allowed: readonly unknown[], sent: unknown): string {
  const names = allowed.filter((v): v is string => typeof v === "string");
  const suggestion = typeof sent === "string" ? didYouMean(sent, names) : "";
  return `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}${suggestion}`;
}

/**
 * A pattern's refusal with what the field's description says it takes ("e.g. US, CH, US-NY"): the
 * regular expression alone rarely tells an agent what to send instead.
 */
function withDescription(message: string, schema: unknown): string {
  const description = typeof schema === "object" && schema !== null ? (schema as { description?: unknown }).description : undefined;
  return typeof description === "string" && description !== "" ? `${message}; expected: ${description}` : message;
}

function describe(err: ErrorObject): Violation {
  const base = err.instancePath;
  switch (err.keyword) {
    case "pattern":
      if ((err.params as { pattern: string }).pattern === NOT_BLANK_PATTERN) {
        return { path: base, message: "must not be blank (whitespace or invisible characters only)" };
      }
      return { path: base, message: withDescription(err.message ?? "is not valid", err.parentSchema) };
    case "additionalProperties": {
      const key = String((err.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return { path: base + pointer(key), message: unknownFieldMessage(key, known) };
    }
    case "required": {
      const key = String((err.params as { missingProperty: string }).missingProperty);
      return { path: base + pointer(key), message: "is required" };
    }
    case "enum": {
      const allowed = (err.params as { allowedValues: unknown[] }).allowedValues;
      return { path: base, message: oneOfMessage(allowed, err.data) };
    }
    case "type":
      return { path: base, message: `must be ${(err.params as { type: string }).type}` };
    case "discriminator": {
      // A tagged union's tag that is missing, not a string or not one of the branches' values.
      const { tag } = err.params as { tag: string };
      const branches = ((err.parentSchema as { oneOf?: { properties?: Record<string, { const?: unknown }> }[] }).oneOf ?? []);
      const allowed = branches.map((b) => b.properties?.[tag]?.const).filter((v) => v !== undefined);
      const sent = (err.data as Record<string, unknown> | undefined)?.[tag];
      return { path: base + pointer(tag), message: sent === undefined ? "is required" : oneOfMessage(allowed, sent) };
    }
    case "minLength":
    case "maxLength": {
      // Counted in code points, as the schema counts them; Ajv's own wording reads "must NOT have fewer than".
      const limit = (err.params as { limit: number }).limit;
      const unit = limit === 1 ? "character" : "characters";
      return { path: base, message: `must be ${err.keyword === "minLength" ? "at least" : "at most"} ${limit} ${unit} long` };
    }
    default:
      return { path: base, message: err.message ?? "is not valid" };
  }
}

/**
 * Validate `data` in place (defaults are applied to it) and return the violations, with paths
 * prefixed by `at` (e.g. "/params" when validating follow-up params).
 */
export function validate(schema: TSchema, data: unknown, at = ""): Violation[] {
  const fn = compile(schema);
  const out: Violation[] = [];
  illFormedValues(data, at, out);
  if (fn(data)) return out;
  const seen = new Set<string>();
  const errors = fn.errors ?? [];
  // A union of constants (an enum written as anyOf) becomes one violation listing the values;
  // its branches' errors are dropped.
  const collapsed = new Set<string>();
  for (const err of errors) {
    if (err.keyword !== "anyOf" || !Array.isArray(err.schema)) continue;
    const branches = err.schema as { const?: unknown }[];
    if (!branches.every((b) => b && typeof b === "object" && "const" in b)) continue;
    collapsed.add(err.schemaPath);
    out.push({ path: at + err.instancePath, message: oneOfMessage(branches.map((b) => b.const), err.data) });
    seen.add(at + err.instancePath + "\u0000" + out.at(-1)!.message);
  }
  const { dropped, typesOf } = unionBranchErrors(errors, collapsed);
  // A wrong type is the root cause: other complaints about the same value add nothing.
  const wrongType = new Set(errors.filter((e) => e.keyword === "type" && !dropped.has(e)).map((e) => e.instancePath));
  for (const err of errors) {
    if (dropped.has(err)) continue;
    if ([...collapsed].some((p) => err.schemaPath.startsWith(p + "/"))) continue;
    if (err.keyword !== "type" && wrongType.has(err.instancePath)) continue;
    // anyOf/oneOf summaries repeat what their branches said; the branch errors are kept (a value of
    // none of a union's types is said once, here, in the summary's place).
    const types = typesOf.get(err);
    if (types === undefined && (err.keyword === "anyOf" || err.keyword === "oneOf" || err.keyword === "if")) continue;
    const v = types === undefined ? describe(err) : { path: err.instancePath, message: `must be ${types}` };
    const violation = { path: at + v.path, message: v.message };
    const key = violation.path + "\u0000" + violation.message;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(violation);
  }
  return out;
}

/**
 * A union of types (`string` or `{lat, lon}`): the branches the value is not even the type of say
 * nothing useful ("must be string" of an object missing `lon`). When some branch is of the value's
 * type, the other branches' errors are dropped, so the matching branch's own ("/origin/lon is
 * required") are reported; when none is, its type errors become one violation naming every type,
 * said in the union's place. Returns the errors to drop and the unions to say so of.
 */
function unionBranchErrors(
  errors: readonly ErrorObject[],
  collapsed: ReadonlySet<string>,
): { dropped: Set<ErrorObject>; typesOf: Map<ErrorObject, string> } {
  const dropped = new Set<ErrorObject>();
  const typesOf = new Map<ErrorObject, string>();
  for (const union of errors) {
    if ((union.keyword !== "anyOf" && union.keyword !== "oneOf") || collapsed.has(union.schemaPath) || !Array.isArray(union.schema)) continue;
    const branches = union.schema as { type?: unknown }[];
    // A union under `items` is one schema path for every item: its errors are the ones at this item.
    const within = (err: ErrorObject) => err.instancePath === union.instancePath || err.instancePath.startsWith(`${union.instancePath}/`);
    const branchOf = (err: ErrorObject): number | undefined => {
      if (!within(err)) return undefined;
      const rest = err.schemaPath.startsWith(`${union.schemaPath}/`) ? err.schemaPath.slice(union.schemaPath.length + 1) : undefined;
      const index = rest === undefined ? Number.NaN : Number.parseInt(rest, 10);
      return Number.isInteger(index) ? index : undefined;
    };
    const mistyped = new Set<number>();
    for (const err of errors) {
      const i = branchOf(err);
      if (i !== undefined && err.keyword === "type" && err.instancePath === union.instancePath && err.schemaPath === `${union.schemaPath}/${i}/type`) mistyped.add(i);
    }
    if (mistyped.size === 0) continue;
    for (const err of errors) {
      const i = branchOf(err);
      if (i !== undefined && mistyped.has(i)) dropped.add(err);
    }
    if (mistyped.size < branches.length) continue;
    typesOf.set(union, branches.flatMap((b) => (typeof b.type === "string" ? [b.type] : [])).join(" or "));
  }
  return { dropped, typesOf };
}

/**
 * How deep a body may nest. Request bodies go three or four levels deep (params, a field, an
 * array); the limit keeps every walk of a body (this one, logging, storing) far from the call
 * stack's end, which ~8,000 levels reached here (a 500 instead of a 400).
 */
export const MAX_BODY_DEPTH = 32;

/**
 * Values no field can take, whatever its schema: strings with a NUL character or an unpaired
 * surrogate (no provider can search for them and PostgreSQL cannot store them), and numbers that are
 * not finite (a literal too large for a double, such as `1e999`, parses to Infinity, which the
 * schemas' bounds would let through: found by the fuzzer as `max_price`). Returns a violation per
 * such value, with its pointer, and one for a value nested deeper than MAX_BODY_DEPTH (not walked further).
 */
function illFormedValues(value: unknown, at: string, out: Violation[], tokens: (string | number)[] = []): void {
  if (tokens.length > MAX_BODY_DEPTH && typeof value === "object" && value !== null) {
    out.push({ path: at + pointer(...tokens), message: `is nested too deeply (at most ${MAX_BODY_DEPTH} levels)` });
    return;
  }
  if (typeof value === "string") {
    if (value.includes("\u0000") || !value.isWellFormed()) {
      out.push({ path: at + pointer(...tokens), message: "must not contain NUL characters or unpaired surrogates" });
    }
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) out.push({ path: at + pointer(...tokens), message: "must be a finite number (this literal is too large for a double)" });
  } else if (Array.isArray(value)) {
    // The pointer is built only for a string refused: every execute walks its whole body here.
    for (let i = 0; i < value.length; i++) {
      tokens.push(i);
      illFormedValues(value[i], at, out, tokens);
      tokens.pop();
    }
  } else if (isObject(value)) {
    for (const k of Object.keys(value)) {
      tokens.push(k);
      illFormedValues(value[k], at, out, tokens);
      tokens.pop();
    }
  }
}

/** Whether a value is a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
