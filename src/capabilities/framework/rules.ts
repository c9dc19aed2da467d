/**
 * Rules as data: the cross-field rules of spec 4.6 that a JSON Schema property cannot say on its
 * own, declared once per capability with the vocabulary below and interpreted here.
 *
 * Each rule reports a violation at the JSON pointer of a field the caller sent (spec 7): at execute
 * every field was sent; in an `update` only the params were, so a rule broken by a stored value and
 * a sent one points at the sent one and says which value came from the search. Field paths are
 * slash-separated from the body's root (`from_year`, `search/from_year`).
 *
 * Rules that JSON Schema can express (requires, excludes, exactly one, at least one) also project a
 * fragment into the published schema (`publishedSchema`), so schema-driven clients and fuzzers see
 * them; validation keeps using the rule, whose message is plain.
 */
import type { JsonObject, JsonValue } from "../types.ts";
import type { Violation } from "../../errors.ts";
import { pointer } from "../../errors.ts";
import { NOT_BLANK_PATTERN } from "../../validation.ts";

/** A condition on one field: present, or equal to a value. */
export interface Condition {
  field: string;
  /** Holds when the field equals this value; when omitted, when the field is present. */
  equals?: JsonValue;
}

/** What a rule sees: the whole query (defaults applied) and, in an update, the fields sent. */
export interface RuleInput {
  query: JsonObject;
  /** Top-level fields the caller sent; undefined at execute (all of them). */
  sent?: ReadonlySet<string>;
}

export interface Rule {
  /** One sentence for docs and inspect. */
  readonly text: string;
  check(input: RuleInput): Violation[];
  /** A JSON Schema fragment equivalent to the rule, for the published schema; none when it cannot be said. */
  schema?(): JsonObject;
}

/** Where `when(...)` reads a field equal to a value. */
export function when(field: string, equals: JsonValue): Condition {
  return { field, equals };
}

// --- reading the query ---------------------------------------------------------------------------

/** The value at a slash-separated path of the query (`search/from_year`); undefined when absent. */
export function valueAt(query: JsonObject, path: string): JsonValue | undefined {
  let at: JsonValue | undefined = query;
  for (const token of path.split("/")) {
    if (at === null || typeof at !== "object" || Array.isArray(at)) return undefined;
    at = (at as JsonObject)[token];
  }
  return at;
}

function present(query: JsonObject, path: string): boolean {
  return valueAt(query, path) !== undefined;
}

function holds(query: JsonObject, c: Condition): boolean {
  const v = valueAt(query, c.field);
  if (c.equals === undefined) return v !== undefined;
  return v !== undefined && JSON.stringify(v) === JSON.stringify(c.equals);
}

function sentField(input: RuleInput, path: string): boolean {
  return input.sent === undefined || input.sent.has(path.split("/")[0]!);
}

/** The pointer of a path (`search/from_year` → `/search/from_year`). */
export function pathPointer(path: string): string {
  return path === "" ? "" : pointer(...path.split("/"));
}

/**
 * Where a violation of `field` points (spec 7: at a field the caller sent): at `field` itself at
 * execute or when the update sent it; otherwise at the first of `others` the update sent (then
 * `stored`: `field`'s value came from the search); at `field` when it sent none of them.
 */
export function sentPointer(input: RuleInput, field: string, ...others: string[]): { path: string; stored: boolean } {
  if (sentField(input, field)) return { path: pathPointer(field), stored: false };
  const sent = others.find((o) => sentField(input, o));
  return sent === undefined ? { path: pathPointer(field), stored: false } : { path: pathPointer(sent), stored: true };
}

/** The first of `paths` the caller sent, else the first. */
function pointAt(input: RuleInput, paths: string[]): string {
  return paths.find((p) => sentField(input, p)) ?? paths[0]!;
}

/** A field's own name (the last token of its path). */
function leaf(path: string): string {
  return path.split("/").at(-1)!;
}

function name(path: string): string {
  return `\`${path.split("/").at(-1)}\``;
}

function fromSearch(input: RuleInput, path: string): string {
  return sentField(input, path) ? "" : " (from the search)";
}

function list(paths: string[], conj: "or" | "and"): string {
  const names = paths.map(name);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} ${conj} ${names.at(-1)}`;
}

function conditionText(c: Condition): string {
  return c.equals === undefined ? name(c.field) : `${name(c.field)}: ${JSON.stringify(c.equals)}`;
}

function topLevel(...paths: string[]): boolean {
  return paths.every((p) => !p.includes("/"));
}

// --- the vocabulary ------------------------------------------------------------------------------

/**
 * `from` ≤ `to` for numbers or ISO dates (YYYY-MM-DD, compared as text once both are valid). By default
 * the violation is at `from`; `at: "to"` says it is the later field that must not precede (flights'
 * `return_date`). Either way a field the caller sent is preferred.
 */
export function range(from: string, to: string, options: { at?: "from" | "to"; message?: string } = {}): Rule {
  const order = options.at === "to" ? [to, from] : [from, to];
  return {
    text: options.message ?? `${name(from)} must not exceed ${name(to)}.`,
    check(input) {
      const a = valueAt(input.query, from);
      const b = valueAt(input.query, to);
      if (a === undefined || b === undefined) return [];
      const comparable = (typeof a === "number" && typeof b === "number") || (isIsoDate(a) && isIsoDate(b));
      if (!comparable || !((a as number | string) > (b as number | string))) return [];
      const at = pointAt(input, order);
      const [f, t] = [leaf(from), leaf(to)];
      const message =
        at === from
          ? `${f} must not exceed ${t}${fromSearch(input, to) && ` (${JSON.stringify(b)}, from the search)`}.`
          : `${t} must not be before ${f}${fromSearch(input, from) && ` (${JSON.stringify(a)}, from the search)`}.`;
      return [{ path: pathPointer(at), message: options.message ?? message }];
    },
  };
}

/** A YYYY-MM-DD string naming a real calendar day (the schema's pattern checks only the shape). */
export function validDate(field: string): Rule {
  return {
    text: `${name(field)} must be a valid calendar date (YYYY-MM-DD).`,
    check(input) {
      const v = valueAt(input.query, field);
      if (typeof v !== "string" || isIsoDate(v)) return [];
      return [{ path: pathPointer(field), message: `must be a valid calendar date (YYYY-MM-DD); ${JSON.stringify(v)} is not one` }];
    },
  };
}

/** Exactly one of `fields`: none names the body; each one after the first names its own field. */
export function exactlyOne(fields: string[], messages: { none?: string; extra?: (field: string, first: string) => string } = {}): Rule {
  const all = list(fields, "or");
  return {
    text: `Exactly one of ${all}.`,
    check(input) {
      const given = fields.filter((f) => present(input.query, f));
      const first = given[0];
      if (first === undefined) {
        // In an update that removed the one given (sent as null), point at it, as atLeastOne does.
        const removed = input.sent === undefined ? undefined : fields.find((f) => input.sent!.has(f));
        return [{ path: removed === undefined ? "" : pathPointer(removed), message: messages.none ?? `Give exactly one of ${all}.` }];
      }
      // In an update, the field the caller sent is the one kept; the stored one is named as the extra.
      const keep = given.find((f) => sentField(input, f)) ?? first;
      return given
        .filter((f) => f !== keep)
        .map((f) => ({
          path: pathPointer(sentField(input, f) ? f : keep),
          message: messages.extra?.(f, keep) ?? `${name(f)} cannot be combined with ${name(keep)}; give exactly one of ${all}.`,
        }));
    },
    schema: topLevel(...fields) ? () => ({ oneOf: fields.map((f) => ({ required: [f] })) }) : undefined,
  };
}

/** At least one of `fields` (violation at the body, or at the one an update removed). */
export function atLeastOne(fields: string[], message?: string): Rule {
  const all = list(fields, "or");
  return {
    text: `At least one of ${all}.`,
    check(input) {
      if (fields.some((f) => present(input.query, f))) return [];
      const removed = input.sent === undefined ? undefined : fields.find((f) => input.sent!.has(f));
      return [{ path: removed === undefined ? "" : pathPointer(removed), message: message ?? `Provide at least one of ${all}.` }];
    },
    schema: topLevel(...fields) ? () => ({ anyOf: fields.map((f) => ({ required: [f] })) }) : undefined,
  };
}

/** `field` is accepted only when `needs` holds (a field present, or a field with a value). */
export function requires(field: string, needs: string | Condition, message?: string): Rule {
  const c: Condition = typeof needs === "string" ? { field: needs } : needs;
  return {
    text: message ?? `${name(field)} requires ${conditionText(c)}.`,
    check(input) {
      if (!present(input.query, field) || holds(input.query, c)) return [];
      const at = pointAt(input, [field, c.field]);
      return [{ path: pathPointer(at), message: message ?? `${name(field)}${fromSearch(input, field)} requires ${conditionText(c)}.` }];
    },
    schema: topLevel(field, c.field)
      ? (): JsonObject =>
          c.equals === undefined
            ? { dependentRequired: { [field]: [c.field] } }
            : // "field → other = value", as an implication (not A, or B).
              { anyOf: [{ not: { required: [field] } }, { required: [c.field], properties: { [c.field]: { const: c.equals } } }] }
      : undefined,
  };
}

/** `field` is not accepted when `other` holds (present, or equal to a value). */
export function excludes(field: string, other: string | Condition, message?: string): Rule {
  const c: Condition = typeof other === "string" ? { field: other } : other;
  return {
    text: message ?? `${name(field)} is not accepted with ${conditionText(c)}.`,
    check(input) {
      if (!present(input.query, field) || !holds(input.query, c)) return [];
      const at = pointAt(input, [field, c.field]);
      return [{ path: pathPointer(at), message: message ?? `${name(field)} is not accepted with ${conditionText(c)}${fromSearch(input, c.field)}.` }];
    },
    schema: topLevel(field, c.field)
      ? (): JsonObject => ({
          not: {
            required: [field, c.field],
            ...(c.equals === undefined ? {} : { properties: { [c.field]: { const: c.equals } } }),
          },
        })
      : undefined,
  };
}

/** A term of a sum: a number field, or the length of an array field. */
export type SumTerm = string | { length: string };

/**
 * The sum of `terms` (number fields and array lengths, absent = 0, defaults applied) at most `max`,
 * or `otherwise.max` while `otherwise.when` holds (hotels: six guests, ten for vacation rentals).
 */
export function sumAtMost(
  terms: SumTerm[],
  max: number,
  options: { what?: string; otherwise?: { when: Condition; max: number } } = {},
): Rule {
  const paths = terms.map((t) => (typeof t === "string" ? t : t.length));
  const what = options.what ?? `the sum of ${list(paths, "and")}`;
  return {
    text: `${what[0]!.toUpperCase()}${what.slice(1)} must be at most ${max}${options.otherwise ? ` (${options.otherwise.max} with ${conditionText(options.otherwise.when)})` : ""}.`,
    check(input) {
      const limit = options.otherwise && holds(input.query, options.otherwise.when) ? options.otherwise.max : max;
      const amounts = terms.map((t) => {
        const v = valueAt(input.query, typeof t === "string" ? t : t.length);
        return typeof t === "string" ? (typeof v === "number" ? v : 0) : Array.isArray(v) ? v.length : 0;
      });
      const total = amounts.reduce((a, b) => a + b, 0);
      if (total <= limit) return [];
      // The term that adds the most (a field the caller sent, not one left at its default, whenever
      // the sum can only be passed that way); in an update, the largest term sent, else the field
      // that chose the limit.
      const byAmount = paths.map((p, i) => ({ p, n: amounts[i]! })).sort((a, b) => b.n - a.n).map((x) => x.p);
      const candidates = options.otherwise ? [...byAmount, options.otherwise.when.field] : byAmount;
      return [{ path: pathPointer(pointAt(input, candidates)), message: `${what} is ${total}; at most ${limit} allowed.` }];
    },
  };
}

/** What "not blank" means everywhere (src/validation.ts): the schema pattern's characters, as a rule. */
const VISIBLE = new RegExp(NOT_BLANK_PATTERN);

/** A string field must hold a character a person can see (for values a schema pattern cannot reach, e.g. inside unions). */
export function notBlank(field: string): Rule {
  return {
    text: `${name(field)} must not be blank.`,
    check(input) {
      const v = valueAt(input.query, field);
      if (typeof v !== "string" || VISIBLE.test(v)) return [];
      return [{ path: pathPointer(field), message: "must not be blank (whitespace or invisible characters only)" }];
    },
  };
}

/** A rule the vocabulary cannot say: a plain function, with its sentence. Paths it returns are pointers. */
export function custom(text: string, check: (input: RuleInput) => Violation[]): Rule {
  return { text, check };
}

// --- interpreting ----------------------------------------------------------------------------------

/** Every violation of `rules`, in declaration order, without duplicates. */
export function checkRules(rules: readonly Rule[], input: RuleInput): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    for (const v of rule.check(input)) {
      const key = `${v.path}\u0000${v.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(v);
    }
  }
  return out;
}

/**
 * The published request schema: the validation schema plus the rules JSON Schema can express
 * (`allOf`), and every rule's sentence in its description.
 */
export function publishedSchema(schema: object, rules: readonly Rule[]): JsonObject {
  const plain = JSON.parse(JSON.stringify(schema)) as JsonObject;
  const fragments = rules.flatMap((r) => (r.schema ? [r.schema()] : []));
  if (fragments.length > 0) plain.allOf = [...((plain.allOf as JsonValue[] | undefined) ?? []), ...fragments];
  if (rules.length > 0) {
    const sentences = rules.map((r) => r.text).join(" ");
    plain.description = plain.description ? `${plain.description as string} Rules: ${sentences}` : `Rules: ${sentences}`;
  }
  return plain;
}

/** A real calendar day in YYYY-MM-DD. */
export function isIsoDate(v: unknown): v is string {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}
