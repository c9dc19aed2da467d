/**
 * Request-field builders for capability schemas, so the same bound reads the same everywhere:
 * TypeBox schemas (JSON Schema with static types), optional unless wrapped in `required`.
 */
import { type TObject, type TSchema, type TString, Type, type TUnion, type TUnsafe } from "@sinclair/typebox";
import { NOT_BLANK_PATTERN } from "../../validation.ts";

export { NOT_BLANK_PATTERN };

/** A string of `min`-`max` characters; `notBlank` refuses whitespace and invisible characters only. */
export function text(min: number, max: number, description: string, options: { notBlank?: boolean; pattern?: string } = {}): TString {
  const pattern = options.pattern ?? (options.notBlank ? NOT_BLANK_PATTERN : undefined);
  return Type.String({ minLength: min, maxLength: max, description, ...(pattern === undefined ? {} : { pattern }) });
}

/**
 * A field with a default: optional in the published and validated schema (clients may omit it), but
 * present in the query type (`Static<typeof schema>`), because validation applies the default
 * before a capability ever sees the query. The schema is `Type.Optional(schema)` at run time; only
 * its static type says "always there".
 */
export function defaulted<T extends TSchema>(schema: T): T {
  if (!("default" in schema)) throw new Error("defaulted() needs a schema with a default");
  return Type.Optional(schema) as unknown as T;
}

/** `num`: results per page, 1-`max`, default `fallback`. */
export function num(max: number, fallback: number, description = "Results per page.") {
  return defaulted(Type.Integer({ minimum: 1, maximum: max, default: fallback, description: `${description} (1-${max}, default ${fallback})` }));
}

/** One of `values` (a plain `enum`, so Ajv's message and the published schema stay simple). Optional. */
export function oneOf<const T extends string>(values: readonly T[], description: string) {
  return Type.Optional(Type.Unsafe<T>({ type: "string", enum: [...values], description }));
}

/** One of `values`, `fallback` when omitted (present in the query type). */
export function oneOfOr<const T extends string>(values: readonly T[], fallback: NoInfer<T>, description: string): TUnsafe<T> {
  return defaulted(Type.Unsafe<T>({ type: "string", enum: [...values], default: fallback, description }));
}

/** A boolean, `fallback` when omitted (present in the query type). */
export function flag(fallback: boolean, description: string) {
  return defaulted(Type.Boolean({ default: fallback, description }));
}

/** A two-letter country code (ISO 3166-1 alpha-2). */
export function country(description = "Country, ISO 3166-1 alpha-2 (e.g. us, de).") {
  return Type.Optional(Type.String({ minLength: 2, maxLength: 2, pattern: "^[A-Za-z]{2}$", description }));
}

/** An interface language code of 2-12 characters (en, de, pt-BR). */
export function language(description = "Interface language code, e.g. en, de, pt-BR.") {
  return Type.Optional(Type.String({ minLength: 2, maxLength: 12, description }));
}

/** A calendar date YYYY-MM-DD (pair with `validDate` for calendar validity). */
export function isoDate(description: string): TString {
  return Type.String({ pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description });
}

/**
 * A tagged union: objects told apart by the `const` value of `tag` (legal.search's `jurisdiction`,
 * legal.read's `source`, companies.financials' company). Published as `oneOf` with an OpenAPI
 * `discriminator`; Ajv (with `discriminator: true`, src/validation.ts) validates a value against its
 * own branch only, so a body gets the errors of that branch and its defaults. A missing or unknown tag
 * is one violation naming the accepted values.
 */
export function taggedUnion<const T extends TObject[]>(
  tag: string,
  branches: [...T],
  description: string,
): TUnion<T> {
  const union = Type.Union(branches, { description, discriminator: { propertyName: tag } });
  // Ajv's discriminator reads the branches from `oneOf`; TypeBox writes a union as `anyOf`.
  const { anyOf, ...rest } = union as unknown as { anyOf: TSchema[] } & Record<string, unknown>;
  return { ...rest, oneOf: anyOf, type: "object", required: [tag] } as unknown as TUnion<T>;
}
