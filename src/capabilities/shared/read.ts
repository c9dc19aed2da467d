/**
 * Reading provider bodies: small, total helpers for the untyped JSON adapters receive, so a mapper
 * never invents a value. Each returns undefined when the value is missing or of another type;
 * strings are trimmed and empty ones are missing; numbers are finite.
 */
import type { JsonObject, JsonValue } from "../types.ts";

export type Obj = Record<string, unknown>;

export function obj(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

export function arr(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export function str(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const t = value.trim();
  return t === "" ? undefined : t;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** An integer, also from a string of digits (YouTube statistics, Nominatim ids arrive as strings). */
export function int(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) ? value : undefined;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** A finite number, also from a numeric string (Nominatim coordinates). */
export function numeric(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "") {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** The strings of an array (others dropped); undefined when none. */
export function strings(value: unknown, max = Number.POSITIVE_INFINITY): string[] | undefined {
  const out = (arr(value) ?? []).map(str).filter((s): s is string => s !== undefined).slice(0, max);
  return out.length > 0 ? out : undefined;
}

/** An http(s) URL, else undefined. */
export function httpUrl(value: unknown): string | undefined {
  const t = str(value);
  return t !== undefined && /^https?:\/\//i.test(t) ? t : undefined;
}

/** The entries whose value is defined: summaries and details never carry placeholders. */
export function defined(entries: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

/** Text cut at `max` characters on a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut).trimEnd() + "…";
}
