/**
 * What a provider's answer must be before a mapper reads it. Every request declares its response
 * (`UpstreamRequest.response`): for JSON, a minimal TypeBox schema of exactly the fields its mapper
 * reads (the mapper's body type is that schema's `Static`, so the compiler keeps the two equal); for
 * other answers, the kind of text or document expected. The upstream client checks every answer
 * against it; a body that does not fit is a `ProviderDrift`: `502 provider_error` naming the provider
 * and the JSON pointer of the first field that did not fit, logged as a warning, charged nothing.
 * So a provider that changes its answers makes an error the day it happens, never an empty page.
 *
 * Schemas are minimal and lenient where the provider is: fields that may be absent are `Optional`,
 * values that may be null are `nullable`; objects accept keys the schema does not name. Only what
 * the mapper cannot do without is required. Mappers that parse XML check the parsed tree with
 * `checkShape` (the same error).
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { UpstreamError } from "./faults.ts";
import { providerDef } from "../providers.ts";
import type { DocumentKind, UpstreamRequest } from "./types.ts";

export type { DocumentKind } from "./types.ts";

/** A request's declared answer: a schema for JSON, else the kind of document. */
export type ResponseDecl = TSchema | DocumentKind;

/** `T` or null (providers send null for absent values). */
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** An optional key whose value may also be null. */
export const nullish = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** A provider's answer that does not have the shape Quarry reads. Not retried: the same request gets the same answer. */
export class ProviderDrift extends UpstreamError {
  constructor(provider: string, pointer: string, problem: string) {
    const title = providerDef(provider)?.title ?? provider;
    super("provider_error", `${title} answered in a shape Quarry does not read: ${pointer === "" ? "the body" : pointer} ${problem}.`, "drift", provider, {
      pointer,
      retryable: false,
      hint:
        "The provider changed its answer; nothing was charged, and retrying will not help until this deployment is updated. " +
        "Operators see it in their logs and with `quarry providers check`.",
    });
    this.name = "ProviderDrift";
  }
}

/** TypeBox's first error in words a caller reads. */
function problemOf(message: string): string {
  if (message === "Expected required property") return "is missing";
  if (message === "Expected union value") return "is not of the expected type";
  const expected = /^Expected (.+)$/.exec(message);
  return expected ? `is not ${/^[aeiou]/i.test(expected[1]!) ? "an" : "a"} ${expected[1]!.replace(/ value$/, "")} as expected` : `does not fit (${message})`;
}

/** The first field of `value` that does not fit `schema`, or undefined when it fits. */
export function firstMisfit(schema: TSchema, value: unknown): { pointer: string; problem: string } | undefined {
  const check = checkerOf(schema);
  if (check.Check(value)) return undefined;
  const first = check.Errors(value).First();
  return first === undefined ? { pointer: "", problem: "does not fit" } : { pointer: first.path, problem: problemOf(first.message) };
}

/** `value` as `schema` describes it, or a ProviderDrift naming the provider and the first field that did not fit. */
export function checkShape<S extends TSchema>(provider: string, schema: S, value: unknown): Static<S> {
  const misfit = firstMisfit(schema, value);
  if (misfit !== undefined) throw new ProviderDrift(provider, misfit.pointer, misfit.problem);
  return value as Static<S>;
}

/** Whether a declared response is a JSON schema (not a document kind). */
export function isSchema(response: ResponseDecl | undefined): response is TSchema {
  return typeof response === "object" && response !== null;
}

/**
 * A parsed JSON answer as the request declared it: the provider's own error answer first (the
 * request's `refusal`, any status; its "no results" answer is passed on unchecked), then, for a
 * 2xx answer, the declared schema. Throws what the
 * caller answers instead; the upstream client and the tests' fake upstream run the same check.
 */
export function checkJsonAnswer(req: UpstreamRequest, status: number, body: unknown, headers: Record<string, string | string[] | undefined> = {}): void {
  const refused = req.refusal?.(body, status, headers);
  if (refused === "no_results") return;
  if (refused !== undefined) throw refused;
  if (status >= 200 && status < 300 && isSchema(req.response)) checkShape(req.provider, req.response, body);
}
