/**
 * Sources and fallback chains: a capability (or one of its variants) names the sources that can
 * answer it, in order. The first slice goes to the first source whose keys are set; when it fails
 * with a provider fault (502/504 before the deadline) the next one answers, its records carry the
 * smaller key set it maps, and `notes[]` says which source answered and what is absent (its
 * `fallbackNotes`, on every page it serves). The cursor remembers the source that answered
 * (`{source, cursor}`, or the source's own cursor when it names its source itself), so `more`
 * stays on it: offsets and tokens of one source mean nothing to another.
 */
import { ApiError } from "../../errors.ts";
import { type ProviderId, requiredKeyOf } from "../../providers.ts";
import type { CapabilityContext, JsonObject, JsonValue, SourcePage } from "../types.ts";

export interface Source<Q, Settings = unknown> {
  /** Names the source in cursors (stable: stored in sessions). */
  id: string;
  /** The provider's name as people know it, for notes. */
  title: string;
  /**
   * The providers (src/providers.ts) this source calls. Their keys are the variables it needs
   * (the provider table says which; `keyOptional` ones are not needed): a source whose variable is
   * unset is skipped (and said so), and the live check (`quarry providers check`) knows what it calls.
   */
  providers: readonly ProviderId[];
  /**
   * Variables this source needs beyond its providers' keys. A function of the capability's settings
   * when they decide it (web.read's Jina engine needs JINA_API_KEY only when WEB_READ_ENGINE=jina).
   */
  requiredKeys?: readonly string[] | ((settings: Settings) => readonly string[]);
  /** One slice: `cursor` is null for the first one, else a `next` this source returned. */
  search(ctx: CapabilityContext<Settings>, query: Q, cursor: JsonValue): Promise<SourcePage>;
  /**
   * When this source answers in place of an earlier one, on every page it serves: which source
   * answered, what is absent and which filters were not applied. Without it the first page says
   * "Answered by <title> because <primary> failed (…)".
   */
  fallbackNotes?(query: Q): string[];
}

/** A source's required variables under the capability's settings: its providers' keys, then its own. */
export function keysOf<Q, S>(source: Source<Q, S>, settings: S): readonly string[] {
  const own = typeof source.requiredKeys === "function" ? source.requiredKeys(settings) : (source.requiredKeys ?? []);
  const fromProviders = source.providers.flatMap((p) => requiredKeyOf(p) ?? []);
  return fromProviders.length === 0 ? own : [...new Set([...fromProviders, ...own])];
}

/** The first of `keys` not in `set`. */
export function firstMissing(keys: readonly string[] | undefined, set: ReadonlySet<string>): string | undefined {
  return keys?.find((k) => !set.has(k));
}

/** A fault that the next source of a chain answers: the provider failed, and there is time left. */
export function isProviderFault(error: unknown, signal: AbortSignal): error is ApiError {
  return error instanceof ApiError && (error.code === "provider_error" || error.code === "provider_timeout") && !signal.aborted;
}

/** The source and inner cursor a stored cursor names (a chain of one keeps the source's own cursor). */
function unwrap<Q, S>(chain: readonly Source<Q, S>[], cursor: JsonValue): { index: number; inner: JsonValue } | null {
  if (cursor === null) return null;
  if (chain.length === 1) return { index: 0, inner: cursor };
  if (typeof cursor === "object" && !Array.isArray(cursor) && typeof cursor.source === "string") {
    const index = chain.findIndex((s) => s.id === cursor.source);
    if (index >= 0) return { index, inner: "cursor" in cursor ? (cursor.cursor ?? null) : cursor };
  }
  // A cursor naming no known source came from the primary.
  return { index: 0, inner: cursor };
}

function wrap<Q, S>(chain: readonly Source<Q, S>[], index: number, next: JsonValue): JsonValue {
  if (next === null || chain.length === 1) return next;
  const id = chain[index]!.id;
  // A cursor that names its own source already (music's `{offset, source}`) is kept as it is.
  if (typeof next === "object" && !Array.isArray(next) && next.source === id && !("cursor" in next)) return next;
  return { source: id, cursor: next } satisfies JsonObject;
}

/** Notes first, then the page's own. */
function withNotes(page: SourcePage, notes: string[]): SourcePage {
  return notes.length === 0 ? page : { ...page, notes: [...notes, ...(page.notes ?? [])] };
}

/** Run one slice through a chain. */
export async function runChain<Q, S>(
  chain: readonly Source<Q, S>[],
  ctx: CapabilityContext<S>,
  query: Q,
  cursor: JsonValue,
): Promise<SourcePage> {
  const at = unwrap(chain, cursor);
  if (at !== null) {
    const source = chain[at.index]!;
    const page = await source.search(ctx, query, at.inner);
    const notes = at.index > 0 ? (source.fallbackNotes?.(query) ?? []) : [];
    return withNotes({ ...page, next: wrap(chain, at.index, page.next) }, notes);
  }
  const set = ctx.config.setVariables;
  const skipped: string[] = [];
  const failures: { source: Source<Q, S>; error: ApiError }[] = [];
  for (const [index, source] of chain.entries()) {
    const missing = firstMissing(keysOf(source, ctx.settings), set);
    if (missing !== undefined) {
      skipped.push(`${source.title} is not configured in this deployment (${missing} is not set)`);
      continue;
    }
    try {
      const page = await source.search(ctx, query, null);
      let notes: string[] = [];
      if (index > 0) {
        const why = [...skipped, ...failures.map((f) => `${f.source.title} failed (${f.error.message})`)].join("; ");
        notes = source.fallbackNotes?.(query) ?? [`Answered by ${source.title} because ${why}.`];
      }
      return withNotes({ ...page, next: wrap(chain, index, page.next) }, notes);
    } catch (error) {
      if (index === chain.length - 1 || !isProviderFault(error, ctx.signal)) {
        if (failures.length === 0 || !(error instanceof ApiError)) throw error;
        throw new ApiError(error.code, `Every source failed. ${[...failures.map((f) => `${f.source.title}: ${f.error.message}`), `${source.title}: ${error.message}`].join(" ")}`, {
          cause: error,
          retryable: error.retryable,
          ...(error.violations === undefined ? {} : { violations: error.violations }),
          ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
          ...(error.hint === undefined ? {} : { hint: error.hint }),
        });
      }
      failures.push({ source, error });
    }
  }
  // The sources after a failed one were all skipped: its failure is the answer.
  const failed = failures.at(-1);
  if (failed !== undefined) throw failed.error;
  // Every source skipped: availability checks refuse this before the call; kept as a clear answer.
  throw new ApiError("capability_unavailable", `No source is configured: ${skipped.join("; ")}.`);
}
