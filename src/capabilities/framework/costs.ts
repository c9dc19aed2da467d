/**
 * Costs as data (PROVIDERS.md, "Credits"): a capability or record action states what one call costs
 * in USD — per call, per item returned, per provider-reported unit, plus what a flow of several
 * provider requests meters through its context — and everything else is derived from that one
 * declaration: the credits charged (`ceil(USD / 0.001)`), the worst case reserved before the call,
 * the typical credits of the catalog and the basis text of inspect.
 *
 * A settlement above the reservation means the declaration is wrong: it is a bug, refused loudly
 * (500, nothing charged; `Billing.run` checks it at every commit), never silently cut to fit.
 */
/** USD per credit (1 credit = $0.001). */
export const USD_PER_CREDIT = 0.001;

/** Credits for an amount of USD: `ceil(usd / 0.001)`, robust to float noise ($0.004 → 4, not 5). */
export function creditsFor(usd: number): number {
  if (!(usd > 0)) return 0;
  return Math.ceil(Math.round((usd / USD_PER_CREDIT) * 1e6) / 1e6);
}

/**
 * What one call costs. All amounts are USD; omitted parts cost nothing. `Q` is the validated query
 * (for a record action, the query of the record's search).
 */
export interface CostDecl<Q> {
  /** Per successful call (the provider answered, results or not). */
  perCall?: number;
  /** Per record returned (social microblog: $0.00015 a post). Needs `maxItems`. */
  perItem?: number;
  /** Per unit the provider reports in its answer (`SourcePage.units`; Serper news `credits`). Needs `maxUnits`. */
  perUnit?: number;
  /** The most records one call can return (usually `num`). */
  maxItems?: (query: Q) => number;
  /** The most units one call can be billed. */
  maxUnits?: (query: Q) => number;
  /** The most USD a flow of several requests meters through `ctx.meter` in one call. */
  maxMetered?: (query: Q) => number;
  /** Typical credits, for the catalog; derived from `perCall` (or `perItem` × 10) when omitted. */
  typicalCredits?: number;
  /** For inspect's `cost.basis`: how the charge is computed, in words. */
  basis: string;
}

/** A free capability or action. */
export function free<Q>(basis: string): CostDecl<Q> {
  return { basis };
}

/** What a call actually used, from which its charge follows. */
export interface Usage {
  calls: number;
  items: number;
  units: number;
  meteredUsd: number;
}

/** Worst-case USD of one call of `query`: what is reserved before it. */
export function worstUsd<Q>(cost: CostDecl<Q>, query: Q): number {
  const items = cost.perItem ? cost.perItem * requireBound(cost.maxItems, "maxItems")(query) : 0;
  const units = cost.perUnit ? cost.perUnit * requireBound(cost.maxUnits, "maxUnits")(query) : 0;
  return (cost.perCall ?? 0) + items + units + (cost.maxMetered?.(query) ?? 0);
}

export function worstCredits<Q>(cost: CostDecl<Q>, query: Q): number {
  return creditsFor(worstUsd(cost, query));
}

/** USD a call used under a declaration. */
export function usedUsd<Q>(cost: CostDecl<Q>, usage: Usage): number {
  return (
    (cost.perCall ?? 0) * usage.calls +
    (cost.perItem ?? 0) * usage.items +
    (cost.perUnit ?? 0) * usage.units +
    usage.meteredUsd
  );
}

/** The catalog's typical credits. */
export function typicalCredits<Q>(cost: CostDecl<Q>): number {
  if (cost.typicalCredits !== undefined) return cost.typicalCredits;
  return creditsFor((cost.perCall ?? 0) + (cost.perItem ?? 0) * 10 + (cost.perUnit ?? 0));
}

/** Whether a declaration can ever charge. */
export function isFree<Q>(cost: CostDecl<Q>): boolean {
  return !cost.perCall && !cost.perItem && !cost.perUnit && cost.maxMetered === undefined;
}

function requireBound<Q>(fn: ((q: Q) => number) | undefined, name: string): (q: Q) => number {
  if (fn === undefined) throw new Error(`a per-item or per-unit cost needs ${name}`);
  return fn;
}

/** Counts what a call uses; the capability's context exposes `charge` for multi-request flows. */
export class Meter {
  private usage: Usage = { calls: 0, items: 0, units: 0, meteredUsd: 0 };

  /** USD spent on a provider request of a multi-request flow (bounded by the declaration's `maxMetered`). */
  charge(usd: number): void {
    if (usd > 0) this.usage.meteredUsd += usd;
  }

  /** One successful call returning `items` records and `units` provider-reported units. */
  page(items: number, units: number): void {
    this.usage.calls += 1;
    this.usage.items += items;
    this.usage.units += units;
  }

  get used(): Usage {
    return { ...this.usage };
  }
}
