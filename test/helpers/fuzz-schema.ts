/**
 * The fuzzer's view of JSON Schema (the subset the OpenAPI document uses): a fast-check arbitrary of
 * VALID values for a schema, an independent validity oracle (written here, not the service's Ajv,
 * so a wrong validator setting in src/ shows up as a disagreement), and JSON pointer helpers that
 * check a violation's `path` is well formed and lands in the body that was sent.
 */
import fc from "fast-check";

export type JsonSchema = Record<string, unknown>;

/** Keywords that only annotate; any other unknown keyword makes the oracle refuse to guess. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const KNOWN = new Set([
  ...ANNOTATIONS,
  "type",
  "properties",
  "required",
  "additionalProperties",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "dependentRequired",
  // OpenAPI's tagged-union hint: validation is the oneOf's.
  "discriminator",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "$ref",
  // What the capability framework publishes for its rules (rules.ts) and tagged unions (fields.ts).
  "not",
  "dependentRequired",
  "discriminator",
]);

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Own property, never the prototype chain (`constructor`, `__proto__` and `toString` are real keys here). */
export const own = (o: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(o, key) ? o[key] : undefined;

/** Define an own enumerable property, even `__proto__` (plain assignment would set the prototype). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of an object that keeps `__proto__` as an own key. */
export function copyObject(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) setOwn(out, k, o[k]);
  return out;
}

/** Length in code points, as JSON Schema (and Ajv) count minLength/maxLength. */
export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const num = (s: JsonSchema, k: string): number | undefined =>
  typeof s[k] === "number" ? (s[k] as number) : undefined;
const types = (s: JsonSchema): string[] =>
  typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : [];

/** `$ref` resolution against the OpenAPI document (`#/components/schemas/X`). */
export type Resolver = (ref: string) => JsonSchema;

export function resolverFor(doc: unknown): Resolver {
  return (ref) => {
    if (!ref.startsWith("#/")) throw new Error(`fuzz: only local $refs are supported, got ${ref}`);
    const target = resolvePointer(doc, ref.slice(1));
    if (!target.found || !isRecord(target.value)) throw new Error(`fuzz: unresolved $ref ${ref}`);
    return target.value;
  };
}

const deref = (s: JsonSchema, resolve: Resolver): JsonSchema =>
  typeof s.$ref === "string" ? deref(resolve(s.$ref), resolve) : s;

// ---------------------------------------------------------------------------------------------
// Oracle
// ---------------------------------------------------------------------------------------------

const FORMATS: Record<string, (s: string) => boolean> = {
  "date-time": (s) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) &&
    !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  email: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  uri: (s) => /^[a-z][a-z0-9+.-]*:[^\s]*$/i.test(s),
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
};

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case "string":
      return typeof v === "string";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v);
    case "object":
      return isRecord(v);
    default:
      throw new Error(`fuzz oracle: unknown type ${t}`);
  }
}

/** Structural equality of JSON values (for const, enum and uniqueItems). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Quarry refuses any string holding NUL or an unpaired surrogate, wherever it is in a body. */
export function hasIllFormedString(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000") || !value.isWellFormed();
  if (Array.isArray(value)) return value.some(hasIllFormedString);
  if (isRecord(value)) return Object.values(value).some(hasIllFormedString);
  return false;
}

/**
 * Quarry refuses a body with an object or array more than `limit` keys or indexes below its root
 * (src/validation.ts MAX_BODY_DEPTH), wherever it is.
 */
export function nestedDeeperThan(value: unknown, limit: number, depth = 0): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth > limit) return true;
  return (Array.isArray(value) ? value : Object.values(value)).some((v) => nestedDeeperThan(v, limit, depth + 1));
}

/**
 * Problems of `value` against `schema`, as JSON pointers (empty when valid). Throws on a keyword it
 * does not understand, so a new kind of schema cannot silently be fuzzed as "anything goes".
 */
export function schemaProblems(schema: JsonSchema, value: unknown, resolve: Resolver, at = ""): string[] {
  const s = deref(schema, resolve);
  for (const k of Object.keys(s))
    if (!KNOWN.has(k)) throw new Error(`fuzz oracle: unsupported keyword "${k}" at ${at}`);
  const out: string[] = [];
  const ts = types(s);
  if (ts.length > 0 && !ts.some((t) => typeOk(t, value))) return [at];
  if (Object.hasOwn(s, "const") && !jsonEqual(s.const, value)) out.push(at);
  if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, value))) out.push(at);
  if (
    Array.isArray(s.anyOf) &&
    !s.anyOf.some((b) => schemaProblems(b as JsonSchema, value, resolve, at).length === 0)
  ) {
    out.push(at);
  }
  if (
    Array.isArray(s.oneOf) &&
    s.oneOf.filter((b) => schemaProblems(b as JsonSchema, value, resolve, at).length === 0).length !== 1
  ) {
    out.push(at);
  }
  if (Array.isArray(s.allOf))
    for (const b of s.allOf) out.push(...schemaProblems(b as JsonSchema, value, resolve, at));
  if (isRecord(s.not) && schemaProblems(s.not as JsonSchema, value, resolve, at).length === 0) out.push(at);
  if (isRecord(s.dependentRequired) && isRecord(value)) {
    for (const [k, deps] of Object.entries(s.dependentRequired)) {
      if (Object.hasOwn(value, k) && Array.isArray(deps) && deps.some((d) => !Object.hasOwn(value, d as string))) out.push(pointerJoin(at, k));
    }
  }
  if (typeof value === "string") {
    const n = codePoints(value);
    const min = num(s, "minLength");
    const max = num(s, "maxLength");
    if (min !== undefined && n < min) out.push(at);
    if (max !== undefined && n > max) out.push(at);
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) out.push(at);
    if (typeof s.format === "string") {
      const check = FORMATS[s.format];
      if (!check) throw new Error(`fuzz oracle: unsupported format "${s.format}"`);
      if (!check(value)) out.push(at);
    }
  }
  if (typeof value === "number") {
    const min = num(s, "minimum");
    const max = num(s, "maximum");
    const xmin = num(s, "exclusiveMinimum");
    const xmax = num(s, "exclusiveMaximum");
    const mult = num(s, "multipleOf");
    if (min !== undefined && value < min) out.push(at);
    if (max !== undefined && value > max) out.push(at);
    if (xmin !== undefined && value <= xmin) out.push(at);
    if (xmax !== undefined && value >= xmax) out.push(at);
    if (mult !== undefined && !Number.isInteger(value / mult)) out.push(at);
  }
  if (Array.isArray(value)) {
    const min = num(s, "minItems");
    const max = num(s, "maxItems");
    if (min !== undefined && value.length < min) out.push(at);
    if (max !== undefined && value.length > max) out.push(at);
    if (s.uniqueItems === true && value.some((v, i) => value.findIndex((w) => jsonEqual(v, w)) !== i))
      out.push(at);
    if (isRecord(s.items)) {
      value.forEach((v, i) => {
        out.push(...schemaProblems(s.items as JsonSchema, v, resolve, `${at}/${i}`));
      });
    }
  }
  if (isRecord(value)) {
    const props = isRecord(s.properties) ? s.properties : {};
    for (const r of Array.isArray(s.required) ? (s.required as string[]) : []) {
      if (!Object.hasOwn(value, r)) out.push(pointerJoin(at, r));
    }
    for (const k of Object.keys(value)) {
      const sub = own(props, k);
      if (isRecord(sub)) out.push(...schemaProblems(sub, value[k], resolve, pointerJoin(at, k)));
      else if (s.additionalProperties === false) out.push(pointerJoin(at, k));
      else if (isRecord(s.additionalProperties)) {
        out.push(...schemaProblems(s.additionalProperties, value[k], resolve, pointerJoin(at, k)));
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Generation of valid values
// ---------------------------------------------------------------------------------------------

/** Strings that are hard on parsers and encoders but valid JSON strings. */
export const UNICODE_PIECES = [
  "😀",
  "👨‍👩‍👧‍👦",
  "\u202Eevil\u202C",
  "مرحبا",
  "עברית",
  "\u0000",
  "\ud800",
  "\udfff",
  "\uFEFF",
  "\u200B",
  "e\u0301",
  "\n\r\t",
  "%00",
  "../../etc/passwd",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "$" + "{x}{{x}}",
  "\\",
  '"',
  "~0~1/",
  "qk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
];

/** Any short string, code-point based, with hostile pieces mixed in. */
export const looseString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.array(fc.constantFrom(...UNICODE_PIECES), { minLength: 1, maxLength: 4 }).map((a) => a.join("")),
    fc.string({ maxLength: 12 }),
  );

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const min = num(s, "minLength") ?? 0;
  const max = num(s, "maxLength");
  // Valid strings are well-formed: Quarry refuses NUL and unpaired surrogates (mutations add them).
  const fits = (v: string) => {
    const n = codePoints(v);
    return n >= min && (max === undefined || n <= max) && !hasIllFormedString(v);
  };
  if (typeof s.format === "string") {
    const f = s.format;
    const byFormat: Record<string, fc.Arbitrary<string>> = {
      "date-time": fc
        .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
        .map((d) => d.toISOString()),
      date: fc
        .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
        .map((d) => d.toISOString().slice(0, 10)),
      email: fc.emailAddress(),
      uri: fc.webUrl(),
      uuid: fc.uuid(),
    };
    const arb = byFormat[f];
    if (!arb) throw new Error(`fuzz: cannot generate format "${f}"`);
    return arb.filter(fits);
  }
  if (typeof s.pattern === "string") {
    const re = new RegExp(s.pattern, "u");
    return fc.stringMatching(new RegExp(s.pattern)).filter((v) => fits(v) && re.test(v));
  }
  const top = Math.min(max ?? min + 40, min + 40);
  const branches: fc.Arbitrary<string>[] = [
    fc.string({ unit: "binary", minLength: min, maxLength: top }),
    fc.string({ minLength: min, maxLength: top }),
    looseString(),
  ];
  // Exactly at the length bounds, in emoji: code points count, not UTF-16 units.
  const bounds = [min, max].filter((n): n is number => n !== undefined && n > 0);
  if (bounds.length > 0) branches.push(fc.constantFrom(...bounds).map((n) => "😀".repeat(n)));
  return fc.oneof(...branches).filter(fits);
}

function numberArb(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min =
    num(s, "minimum") ??
    (num(s, "exclusiveMinimum") === undefined ? undefined : num(s, "exclusiveMinimum")! + 1);
  const max =
    num(s, "maximum") ??
    (num(s, "exclusiveMaximum") === undefined ? undefined : num(s, "exclusiveMaximum")! - 1);
  if (integer) {
    const lo = min ?? -1_000_000;
    const hi = max ?? 1_000_000;
    return fc.oneof(fc.integer({ min: lo, max: hi }), fc.constantFrom(lo, hi));
  }
  return fc.double({ min: min ?? -1e9, max: max ?? 1e9, noNaN: true, noDefaultInfinity: true });
}

/** Any JSON value, small. */
export const anyJson = (): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth: 3 }).map((v) => v as unknown);

/** Arbitrary of values that satisfy `schema` (by the oracle above; callers may double-check). */
export function validValue(schema: JsonSchema, resolve: Resolver): fc.Arbitrary<unknown> {
  const s = deref(schema, resolve);
  if (Object.hasOwn(s, "const")) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((b) => validValue(b as JsonSchema, resolve)));
  if (Array.isArray(s.oneOf)) {
    return fc
      .oneof(...s.oneOf.map((b) => validValue(b as JsonSchema, resolve)))
      .filter((v) => schemaProblems(s, v, resolve).length === 0);
  }
  const ts = types(s);
  const t = ts.length > 0 ? ts : ["string", "integer", "boolean", "null", "object", "array"];
  return fc.oneof(...t.map((one) => validOfType(s, one, resolve)));
}

function validOfType(s: JsonSchema, t: string, resolve: Resolver): fc.Arbitrary<unknown> {
  switch (t) {
    case "string":
      return stringArb(s);
    case "integer":
      return numberArb(s, true);
    case "number":
      return numberArb(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = isRecord(s.items) ? validValue(s.items, resolve) : anyJson();
      const min = num(s, "minItems") ?? 0;
      const max = Math.min(num(s, "maxItems") ?? min + 5, min + 5);
      return s.uniqueItems === true
        ? fc.uniqueArray(items, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength: min, maxLength: max });
    }
    case "object":
      return objectArb(s, resolve);
    default:
      throw new Error(`fuzz: cannot generate type ${t}`);
  }
}

function objectArb(s: JsonSchema, resolve: Resolver): fc.Arbitrary<Record<string, unknown>> {
  const props = isRecord(s.properties) ? s.properties : {};
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const keys = Object.keys(props);
  const fields = keys.map((k) =>
    fc.tuple(
      fc.constant(k),
      required.has(k) ? fc.constant(true) : fc.boolean(),
      validValue(props[k] as JsonSchema, resolve),
    ),
  );
  const extras =
    s.additionalProperties === false
      ? fc.constant<[string, unknown][]>([])
      : fc.array(
          fc.tuple(
            fc.string({ maxLength: 8 }).filter((k) => !Object.hasOwn(props, k)),
            isRecord(s.additionalProperties) ? validValue(s.additionalProperties, resolve) : anyJson(),
          ),
          { maxLength: 3 },
        );
  return fc.tuple(fc.tuple(...fields), extras).map(([chosen, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of extra) setOwn(out, k, v);
    for (const [k, keep, v] of chosen) if (keep) setOwn(out, k, v);
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// JSON pointers
// ---------------------------------------------------------------------------------------------

/** RFC 6901 syntax: "" or "/"-separated tokens whose only escapes are ~0 and ~1. */
export const isJsonPointer = (p: string): boolean => /^(\/([^~/]|~[01])*)*$/.test(p);

export const pointerToken = (t: string | number): string =>
  String(t).replace(/~/g, "~0").replace(/\//g, "~1");
export const pointerJoin = (base: string, token: string | number): string => `${base}/${pointerToken(token)}`;

export function parsePointer(p: string): string[] {
  if (p === "") return [];
  return p
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function resolvePointer(root: unknown, p: string): { found: boolean; value: unknown } {
  let cur = root;
  for (const token of parsePointer(p)) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= cur.length)
        return { found: false, value: undefined };
      cur = cur[Number(token)];
    } else if (isRecord(cur)) {
      if (!Object.hasOwn(cur, token)) return { found: false, value: undefined };
      cur = cur[token];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: cur };
}

/**
 * Whether a violation pointer lands in the sent body: the location itself exists, or (a missing
 * field) its parent exists and is an object or array.
 */
export function pointerLands(root: unknown, p: string): boolean {
  if (resolvePointer(root, p).found) return true;
  const tokens = parsePointer(p);
  if (tokens.length === 0) return false;
  const parent = p.slice(0, p.lastIndexOf("/"));
  const up = resolvePointer(root, parent);
  return up.found && (isRecord(up.value) || Array.isArray(up.value));
}
