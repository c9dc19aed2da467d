/**
 * Running a capability: its context for one call (the upstream client bound to the caller's
 * presence, the answer cache, progress, the call's deadline, the clock, configuration, bounded cache
 * and indexes, the search's filters), its search or record action under that deadline, and the one
 * point where what the adapter threw becomes a catalog error (providerFault).
 */
import type { BoundedCache, Indexes } from "../capabilities/framework/cache.ts";
import type { ActionResult, BaseContext, Capability, Filter, JsonObject, JsonValue, SearchPage, StoredRecordView } from "../capabilities/types.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { ApiError, asRecordRefusal, type CallOrigin, ClientGone } from "../errors.ts";
import { type AnswerCache, CallCacheWatch } from "../upstream/answer-cache.ts";
import { whileClientWaits } from "../upstream/client.ts";
import { DeadlineSignals } from "../upstream/deadlines.ts";
import { reportingSteps } from "../upstream/progress.ts";
import type { PageRoute, UpstreamClient } from "../upstream/types.ts";

export interface RunnerDeps {
  upstream: UpstreamClient;
  /** Quarry's cache of provider answers (upstream/answer-cache.ts). */
  answers: AnswerCache;
  config: Config;
  clock: Clock;
  /** The process's bounded cache and loaded indexes, handed to capabilities through their context. */
  cache: BoundedCache;
  indexes: Indexes;
  /** A watch over each call's provider answers, when the deployment installs one (the offline demo does: src/demo). */
  callWatch?: () => CallWatch;
  /** Where pages read by address are fetched from, when the deployment installs a route (tests and the demo: the replay). */
  pageRoute?: PageRoute;
}

/**
 * Watches one call's provider answers: the call's client goes through `watch`, a search's answer
 * gets `note()` among its notes, and a failure is said as `failure` says it.
 */
export interface CallWatch {
  watch(client: UpstreamClient): UpstreamClient;
  note(): string | undefined;
  failure(failure: unknown): unknown;
}

type CallContext = BaseContext & { watch?: CallWatch };

export class SearchRunner {
  /** Calls starting within a few ms share a deadline signal (upstream/deadlines.ts). */
  private readonly deadlines = new DeadlineSignals();
  private readonly nowDate = (): Date => new Date(this.deps.clock.now());

  constructor(private readonly deps: RunnerDeps) {}

  /** Run the capability's search under the deadline; what it throws becomes a catalog error. */
  async search(cap: Capability, query: JsonObject, cursor: JsonValue, origin: CallOrigin, filters?: readonly Filter[]): Promise<SearchPage> {
    const ctx = this.context(cap, origin, filters);
    try {
      const page = await cap.search(ctx, query, cursor);
      const note = ctx.watch?.note();
      return note === undefined ? page : { ...page, notes: [...(page.notes ?? []), note] };
    } catch (err) {
      throw providerFault(ctx, cap, err);
    }
  }

  /** Run one record action's handler under the deadline; a refusal of the record is said as one. */
  async action(
    cap: Capability,
    run: (ctx: BaseContext, record: StoredRecordView) => Promise<ActionResult>,
    record: StoredRecordView,
    origin: CallOrigin,
  ): Promise<ActionResult> {
    const ctx = this.context(cap, origin);
    try {
      return await run(ctx, record);
    } catch (err) {
      throw providerFault(ctx, cap, err, asRecordRefusal);
    }
  }

  /**
   * What a capability gets for one call: the upstream client (bound to the caller's presence, so a
   * call whose caller has gone starts no provider request), the call's deadline, the clock, the
   * configuration, the bounded cache and indexes, and the search's filters.
   */
  private context(cap: Capability, origin: CallOrigin, filters: readonly Filter[] = []): CallContext {
    const gone = origin.clientGone;
    // Quarry's answer cache (upstream/answer-cache.ts), for capabilities that declare a time to live.
    const answers = cap.cacheTtlMs > 0 && this.deps.config.answerCache.enabled ? new CallCacheWatch() : undefined;
    let upstream = answers === undefined ? this.deps.upstream : this.deps.answers.client(this.deps.upstream, cap.cacheTtlMs, answers, origin.fresh === true);
    if (gone !== undefined) upstream = whileClientWaits(upstream, gone);
    // A caller following the call (an MCP progressToken) is told each provider answer as a step.
    if (origin.progress !== undefined) upstream = reportingSteps(upstream, origin.progress);
    // A watch the deployment installed (the offline demo's: which recordings answered the call).
    const watch = this.deps.callWatch?.();
    if (watch !== undefined) upstream = watch.watch(upstream);
    const { indexes, upstream: processUpstream } = this.deps;
    return {
      ...(watch === undefined ? {} : { watch }),
      upstream,
      signal: this.deadlines.signal(cap.deadlineMs),
      now: this.nowDate,
      config: this.deps.config,
      cache: this.deps.cache,
      index: (name, options, load) =>
        indexes.get(name, options, () => load({ upstream: processUpstream, signal: AbortSignal.timeout(options.loadTimeoutMs ?? 60_000) })),
      filters,
      ...(origin.progress === undefined ? {} : { progress: origin.progress }),
      ...(answers === undefined ? {} : { answers }),
      ...(this.deps.pageRoute === undefined ? {} : { pageRoute: this.deps.pageRoute }),
    };
  }
}

/**
 * What an adapter threw, as the catalog error the caller gets: an ApiError (or the client gone) as it
 * is; anything else (an answer in an unexpected shape) provider_error, or provider_timeout when the
 * deadline had passed; `refine` (a record action's) then, and the call's watch last (the offline
 * demo's "no recording").
 */
function providerFault(ctx: CallContext, cap: Capability, err: unknown, refine: (e: unknown) => unknown = (e) => e): unknown {
  const failure = refine(asProviderError(err, cap.id, ctx.signal.aborted));
  return ctx.watch?.failure(failure) ?? failure;
}

/** Adapter failures that are not ApiErrors (unexpected body shapes) are the provider's fault. */
export function asProviderError(err: unknown, capabilityId: string, timedOut: boolean): unknown {
  if (err instanceof ApiError || err instanceof ClientGone) return err;
  if (timedOut) return new ApiError("provider_timeout", `${capabilityId}: the provider did not answer before the deadline.`);
  return new ApiError("provider_error", `${capabilityId}: the provider's answer could not be read.`, {
    cause: err,
    hint: "The upstream answered in an unexpected shape; nothing was charged.",
  });
}
