/**
 * Environment for pointing Quarry at the replay server: every provider base URL variable (all
 * hosts) set to `<replay>/<prefix>`, and every key variable set to a placeholder, so the offline
 * demo and tests run the real client code against recorded responses. The reader (web.read,
 * web.search's `read`) is pointed there too: it reads pages from the replay's `webpages` folder,
 * connecting to the replay's address through its operator allow-list (src/reader).
 */
import { isIP } from "node:net";
import { PROVIDERS, type ProviderDef } from "../../providers.ts";

/** Placeholder secret; recordings ignore `api_key`, so any value works. */
export const DEMO_KEY = "demo-key";

/**
 * URL prefix for a provider host: the provider id for the default host, `<id>-<host>` for others
 * (the replay server falls back from `<id>-<host>` to the provider's recordings).
 */
export function replayPrefix(providerId: string, hostName = "default"): string {
  return hostName === "default" ? `/${providerId}` : `/${providerId}-${hostName}`;
}

export function replayEnvironment(replayUrl: string): Record<string, string> {
  const base = replayUrl.replace(/\/+$/, "");
  const env: Record<string, string> = {};
  for (const provider of Object.values(PROVIDERS as Record<string, ProviderDef>)) {
    for (const [hostName, host] of Object.entries(provider.hosts)) {
      env[host.baseUrlVar] = `${base}${replayPrefix(provider.id, hostName)}`;
    }
    if (provider.keyVar !== undefined) {
      // A provider's public test key (TheMealDB's `1`) is part of recorded paths, so keep it.
      env[provider.keyVar] = provider.defaultKey ?? DEMO_KEY;
    }
    // A pacing the operator can set (Reddit's 6 s, twitterapi.io's 5 s) is the account's, not the
    // replay's: off here, so the demo and tests do not wait on a recording. Pacing fixed by a
    // provider's published rate (MusicBrainz, Nominatim, bible-api.com) stays, as it is real.
    if (provider.intervalVar !== undefined) env[provider.intervalVar] = "0";
  }
  return { ...env, ...readerReplayEnvironment(base) };
}

/**
 * The reader's replay settings: pages read from `<replay>/webpages/<host><path>`, and the replay's
 * own address allowed (the reader refuses loopback otherwise). Tests of the reader's network guard
 * unset both.
 */
export function readerReplayEnvironment(replayUrl: string): Record<string, string> {
  const host = new URL(replayUrl).hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  return {
    WEB_READ_REPLAY_BASE_URL: `${replayUrl.replace(/\/+$/, "")}/webpages`,
    ...(family === 0 ? {} : { WEB_READ_ALLOW_CIDRS: `${host}/${family === 6 ? 128 : 32}` }),
  };
}
