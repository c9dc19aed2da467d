/**
 * The one place that decides whether a capability can be used: which capability an id names (404),
 * whether the caller's plan enables it (403), whether this deployment can serve it (503: a missing
 * key) and whether it can serve this particular query (503: a variant whose key is missing). The
 * catalog, inspect, execute and every follow-up ask it; nothing else reads `cap.availability`.
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import type { Registry } from "../capabilities/registry.ts";
import type { Capability, JsonObject } from "../capabilities/types.ts";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import { didYouMean } from "../suggest.ts";

/** Where hints send a caller for the catalog, over REST and MCP alike. */
export const THE_CATALOG = "the catalog (GET /v1/catalog; over MCP the discover tool)";

/** What the catalog and inspect say of a capability here: available or not, and why (or what is partial). */
export interface AvailabilityStatus {
  available: boolean;
  /** Why it is unavailable, or what part of it is (a variant without its key). */
  reason?: string;
}

export class Availability {
  constructor(private readonly deps: { registry: Registry; accounts: AccountService; config: Config }) {}

  /** The capability, or 404 capability_unknown. */
  capability(id: string): Capability {
    const cap = Object.hasOwn(this.deps.registry, id) ? this.deps.registry[id] : undefined;
    if (!cap) {
      throw new ApiError("capability_unknown", `No capability "${id}"${didYouMean(id, Object.keys(this.deps.registry))}.`, {
        hint: `The capabilities of this deployment are listed in ${THE_CATALOG}.`,
      });
    }
    return cap;
  }

  /** Whether the caller's plan enables the capability (the catalog's `enabled`). */
  enabled(caller: Caller, cap: Capability): boolean {
    return this.deps.accounts.isEnabled(caller, cap.id);
  }

  /** The ids of the capabilities the caller's plan enables (the account's `enabled_capabilities`), in the registry's order. */
  enabledIds(caller: Caller): string[] {
    return Object.values(this.deps.registry)
      .filter((cap) => this.enabled(caller, cap))
      .map((cap) => cap.id);
  }

  /** Available here, and why not (or what of it is not), as the catalog and inspect report it. */
  status(cap: Capability): AvailabilityStatus {
    const { missing, partial } = cap.availability(this.deps.config.setVariables, this.deps.config);
    const reason = missing ? `${missing} is not set in this deployment` : partial;
    return { available: missing === undefined, ...(reason ? { reason } : {}) };
  }

  /** 403 when the plan does not enable it, 503 when no variant of it is available here. */
  assertUsable(caller: Caller, cap: Capability): void {
    if (!this.enabled(caller, cap)) {
      throw this.deps.accounts.disabledError(caller, cap.id, `Upgrade the plan, or use a capability listed as enabled in ${THE_CATALOG}.`);
    }
    const { missing } = cap.availability(this.deps.config.setVariables, this.deps.config);
    if (missing) throw unavailable(cap, missing);
  }

  /** 503 when the variant this query selects is unavailable here (e.g. social microblog without its key). */
  assertQueryAvailable(cap: Capability, query: JsonObject): void {
    const missing = cap.missingKeyFor(this.deps.config.setVariables, query, this.deps.config);
    if (missing) throw unavailable(cap, missing, query);
  }
}

function unavailable(cap: Capability, missing: string, query?: JsonObject): ApiError {
  const which = query === undefined ? cap.id : `${cap.id} (this request)`;
  return new ApiError("capability_unavailable", `${which} is unavailable: ${missing} is not set in this deployment.`, {
    hint: `Choose another capability or option; ${THE_CATALOG} shows which are available.`,
  });
}
