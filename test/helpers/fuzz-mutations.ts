/**
 * Hostile request bodies for the fuzzer: start from a VALID body of a JSON Schema object and apply
 * one to three edits (wrong types, extra and prototype-poisoning keys, keys that need JSON pointer
 * escaping, boundary values ±1, huge strings, deep nesting, unicode, nulls, missing fields, near
 * misses of enums and patterns), or replace the body by a non-object or by bytes that are not JSON.
 * Whether a result is valid is NOT tracked here: the oracle in fuzz-schema.ts decides afterwards.
 */
import fc from "fast-check";
import {
  anyJson,
  copyObject,
  isRecord,
  type JsonSchema,
  looseString,
  type Resolver,
  schemaProblems,
  setOwn,
  UNICODE_PIECES,
  validValue,
} from "./fuzz-schema.ts";

/** What goes over the wire: a JSON value, or raw bytes (REST only) with their content type. */
export type Payload =
  | { kind: "json"; value: unknown; label: string }
  | { kind: "raw"; text: string | undefined; contentType: string | undefined; label: string };

/** Keys that break naive code: prototype poisoning, pointer escaping, empties, odd code points. */
export const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "a/b",
  "~",
  "~0",
  "~1",
  "a~1b",
  "x/y~z",
  "/",
  "",
  " ",
  "😀",
  "\u0000",
  "\ud800",
  "$ref",
  "length",
];

/** Up to ~100 KB on the wire, of one repeated unit (ASCII, emoji, NUL, lone surrogate, space…). */
export const hugeString = (): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.integer({ min: 1_000, max: 100_000 }),
      fc.constantFrom("a", "😀", "\u0000", "\ud800", " ", "é", "\\"),
    )
    .map(([bytes, unit]) => unit.repeat(Math.max(1, Math.floor(bytes / JSON.stringify(unit).length))));

/** 50 to 200 levels of arrays, objects or both around a small value. */
export const deepValue = (): fc.Arbitrary<unknown> =>
  fc
    .tuple(fc.integer({ min: 50, max: 200 }), fc.constantFrom("array", "object", "mixed"), anyJson())
    .map(([depth, kind, leaf]) => {
      let v: unknown = leaf;
      for (let i = 0; i < depth; i++) {
        const asArray = kind === "array" || (kind === "mixed" && i % 2 === 0);
        v = asArray ? [v] : { a: v };
      }
      return v;
    });

/** Any string a client might send, hostile ones included. */
export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: looseString() },
    { weight: 1, arbitrary: hugeString() },
    { weight: 1, arbitrary: fc.constantFrom(...UNICODE_PIECES) },
  );

/** A value of each JSON type (numbers at awkward magnitudes included). */
export const anyTypedValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0.5, -1, 1e21, -1e21, 2 ** 53 + 2, 1e308, -0),
    fc.boolean(),
    fc.constant(null),
    fc.array(anyJson(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), anyJson(), { maxKeys: 3 }),
  );

/** Bodies that are not a JSON object. */
export const nonObjectBody = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(null),
    fc.array(anyJson(), { maxLength: 4 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 20 }),
    fc.boolean(),
    deepValue().map((v) => [v]),
  );

/** Raw bytes that are no JSON object at all, or not sent as JSON (REST only). */
export const rawPayload = (): fc.Arbitrary<Payload> =>
  fc.oneof(
    fc
      .constantFrom<[string | undefined, string | undefined, string]>(
        [undefined, undefined, "no-body"],
        ["", "application/json", "empty-json"],
        ['{"query": ', "application/json", "truncated"],
        ["{'a':1}", "application/json", "single-quotes"],
        ["[1,2", "application/json", "open-array"],
        ["NaN", "application/json", "nan"],
        ['{"a":1}{"b":2}', "application/json", "two-docs"],
        ["\u0000", "application/json", "nul"],
        ['{"a":"\\ud800', "application/json", "open-string"],
        ['{"query":"x"}', "text/plain", "text-plain"],
        ["query=x", "application/x-www-form-urlencoded", "form"],
        ['{"query":"x"}', "application/xml", "xml"],
      )
      .map(
        ([text, contentType, label]): Payload => ({ kind: "raw", text, contentType, label: `raw:${label}` }),
      ),
    // Over the 1 MB body limit.
    fc.constant<Payload>({
      kind: "raw",
      text: JSON.stringify({ query: "a".repeat(1_100_000) }),
      contentType: "application/json",
      label: "raw:over-limit",
    }),
  );

/** One edit of a body: a JSON path and either a deletion or a new value. */
interface Edit {
  path: string[];
  value?: unknown;
  remove?: true;
  label: string;
}

const typesOf = (s: JsonSchema): string[] =>
  typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : [];

/** Whether a schema restricts anything (a value of another type or shape exists). */
const restricts = (s: JsonSchema): boolean =>
  typesOf(s).length > 0 || Object.hasOwn(s, "const") || Array.isArray(s.enum) || Array.isArray(s.anyOf);

function filler(s: JsonSchema): string {
  const re = typeof s.pattern === "string" ? new RegExp(s.pattern, "u") : null;
  return ["a", "A", "1", "x", "_"].find((c) => !re || re.test(c.repeat(3))) ?? "a";
}

/** min−1, min, max, max+1 (and non-integers, huge magnitudes) for numbers; the same for lengths. */
function boundaries(s: JsonSchema): unknown[] {
  // A union (an update param that may also be null): each branch's boundaries.
  if (Array.isArray(s.anyOf)) return s.anyOf.flatMap((b) => (isRecord(b) ? boundaries(b as JsonSchema) : []));
  const out: unknown[] = [];
  const n = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : undefined);
  const ts = typesOf(s);
  if (ts.includes("integer") || ts.includes("number")) {
    for (const b of [n("minimum"), n("maximum"), n("exclusiveMinimum"), n("exclusiveMaximum")]) {
      if (b !== undefined) out.push(b - 1, b, b + 1);
    }
    const lo = n("minimum") ?? 0;
    const hi = n("maximum") ?? 100;
    out.push(lo + 0.5, hi - 0.5, 1e21, -1e21, 2 ** 53 + 2, -(2 ** 31) - 1, 2 ** 31, 0);
  }
  if (ts.includes("string")) {
    const c = filler(s);
    for (const b of [n("minLength"), n("maxLength")]) {
      if (b === undefined) continue;
      for (const len of [b - 1, b, b + 1]) {
        if (len < 0) continue;
        out.push(c.repeat(len));
        // Emoji: one code point each, two UTF-16 units; a unit-counting check would misjudge them.
        out.push("😀".repeat(len));
      }
    }
  }
  if (ts.includes("array")) {
    for (const b of [n("minItems"), n("maxItems")]) {
      if (b === undefined) continue;
      for (const len of [b - 1, b, b + 1]) if (len >= 0) out.push(Array.from({ length: len }, (_, i) => i));
    }
  }
  return out;
}

/** Whether some value the schema admits is a string (near misses are edits of such strings). */
function admitsString(s: JsonSchema): boolean {
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b) => isRecord(b) && admitsString(b as JsonSchema));
  if (Array.isArray(s.enum)) return s.enum.some((v) => typeof v === "string");
  if (Object.hasOwn(s, "const")) return typeof s.const === "string";
  const ts = typesOf(s);
  return ts.length === 0 || ts.includes("string");
}

/** A value of the right type that is just outside an enum, const or pattern. */
function nearMiss(s: JsonSchema, resolve: Resolver): fc.Arbitrary<unknown> | null {
  const hasShape =
    Array.isArray(s.enum) ||
    Array.isArray(s.anyOf) ||
    typeof s.pattern === "string" ||
    Object.hasOwn(s, "const");
  // Without a string among its values there is nothing to edit (and filtering for one would spin).
  if (!hasShape || !admitsString(s)) return null;
  return fc
    .tuple(
      validValue(s, resolve).filter((v): v is string => typeof v === "string"),
      fc.constantFrom("upper", "lower", "space", "append", "chop", "bang", "accent", "nul", "empty"),
    )
    .map(([v, how]) => {
      switch (how) {
        case "upper":
          return v.toUpperCase();
        case "lower":
          return v.toLowerCase();
        case "space":
          return ` ${v}`;
        case "append":
          return `${v}x`;
        case "chop":
          return v.slice(0, -1);
        case "bang":
          return `${v.slice(0, -1)}!`;
        case "accent":
          return `${v.slice(0, -1)}é`;
        case "nul":
          return `${v}\u0000`;
        default:
          return "";
      }
    })
    .filter((v) => schemaProblems(s, v, resolve).length > 0);
}

export interface MutationOptions {
  /** Extra candidate values per top-level field (real ids, foreign ids, nested bodies…). */
  fieldValues?: Record<string, fc.Arbitrary<unknown>>;
}

/** Edits of one field (and, for object-typed fields, of its own fields, one level down). */
function fieldEdits(
  key: string,
  s: JsonSchema,
  resolve: Resolver,
  options: MutationOptions,
  depth: number,
): fc.Arbitrary<Edit>[] {
  const set = (label: string, arb: fc.Arbitrary<unknown>) =>
    arb.map((value): Edit => ({ path: [key], value, label: `${label}:${key}` }));
  const edits: fc.Arbitrary<Edit>[] = [
    fc.constant<Edit>({ path: [key], remove: true, label: `missing:${key}` }),
    set("null", fc.constant(null)),
    set("valid", validValue(s, resolve)),
    set("unicode", hostileString()),
    set("huge", hugeString()),
    set("deep", deepValue()),
  ];
  if (restricts(s)) {
    edits.push(
      set(
        "wrong-type",
        anyTypedValue().filter((v) => schemaProblems(s, v, resolve).length > 0),
      ),
    );
  }
  const bounds = boundaries(s);
  if (bounds.length > 0) edits.push(set("boundary", fc.constantFrom(...bounds)));
  const miss = nearMiss(s, resolve);
  if (miss) edits.push(set("near-miss", miss));
  const pool = options.fieldValues?.[key];
  if (pool) edits.push(set("pool", pool), set("pool", pool));
  if (depth < 1 && isRecord(s.properties) && Object.keys(s.properties).length > 0) {
    for (const inner of objectEdits(s, resolve, {}, depth + 1)) {
      edits.push(inner.map((e) => ({ ...e, path: [key, ...e.path] })));
    }
  }
  return edits;
}

function objectEdits(
  schema: JsonSchema,
  resolve: Resolver,
  options: MutationOptions,
  depth: number,
): fc.Arbitrary<Edit>[] {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const edits: fc.Arbitrary<Edit>[] = [];
  for (const [k, s] of Object.entries(props))
    edits.push(...fieldEdits(k, s as JsonSchema, resolve, options, depth));
  for (const [k, pool] of Object.entries(options.fieldValues ?? {})) {
    if (!Object.hasOwn(props, k))
      edits.push(pool.map((value): Edit => ({ path: [k], value, label: `pool:${k}` })));
  }
  edits.push(
    fc
      .tuple(
        fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ unit: "binary", maxLength: 8 })),
        fc.oneof(anyJson(), fc.constant({ prototype: { polluted: true } }), deepValue()),
      )
      .map(([key, value]): Edit => ({ path: [key], value, label: `extra:${JSON.stringify(key)}` })),
  );
  return edits;
}

/** Apply edits to a copy (keys such as `__proto__` stay own data keys). */
function applyEdits(body: Record<string, unknown>, edits: Edit[]): Record<string, unknown> {
  const out = copyObject(body);
  for (const e of edits) {
    let parent = out;
    for (const k of e.path.slice(0, -1)) {
      const next = Object.hasOwn(parent, k) ? parent[k] : undefined;
      const child = isRecord(next) ? copyObject(next) : {};
      setOwn(parent, k, child);
      parent = child;
    }
    const last = e.path.at(-1)!;
    if (e.remove) delete parent[last];
    else setOwn(parent, last, e.value);
  }
  return out;
}

/** Valid bodies, mutated bodies and non-object bodies of one object schema, labelled for stats. */
export function mutatedBodies(
  schema: JsonSchema,
  resolve: Resolver,
  valid: fc.Arbitrary<Record<string, unknown>>,
  options: MutationOptions = {},
): fc.Arbitrary<Payload> {
  const edits = objectEdits(schema, resolve, options, 0);
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((value): Payload => ({ kind: "json", value, label: "base" })) },
    {
      weight: 12,
      arbitrary: fc.tuple(valid, fc.array(fc.oneof(...edits), { minLength: 1, maxLength: 3 })).map(
        ([body, list]): Payload => ({
          kind: "json",
          value: applyEdits(body, list),
          label: list.map((e) => e.label).join("+"),
        }),
      ),
    },
    { weight: 1, arbitrary: fc.constant<Payload>({ kind: "json", value: {}, label: "empty-object" }) },
    {
      weight: 2,
      arbitrary: nonObjectBody().map((value): Payload => ({ kind: "json", value, label: "non-object" })),
    },
  );
}

/** Valid bodies of an object schema, as objects. */
export function validBodies(schema: JsonSchema, resolve: Resolver): fc.Arbitrary<Record<string, unknown>> {
  return validValue(schema, resolve).filter(isRecord);
}
