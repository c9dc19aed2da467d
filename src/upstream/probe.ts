/**
 * A provider's live probe: one cheap real request, declared beside the adapter that reads the
 * provider's answers (a one-result search, a free lookup), with the same declared response as the
 * adapter's own requests. `quarry providers check` sends each configured provider's probe and says
 * whether the provider still answers the way Quarry reads it. Probes are never sent by tests or CI.
 */
import type { ProviderId } from "../providers.ts";
import type { UpstreamRequest } from "./types.ts";

export interface ProviderProbe {
  provider: ProviderId;
  /** What the probe asks, in a few words ("one work by id (free)"). */
  what: string;
  /** The request, built by the adapter's own request mapper, with its declared response. */
  request: UpstreamRequest;
}
