/**
 * The provider table: every upstream host, the environment variables that configure it, and how
 * its key is attached. `docs/providers.md` and `.env.example` list the same variables (a test checks).
 *
 * Rule (PROVIDERS.md): base URL from `<PROVIDER>_BASE_URL` (or `<PROVIDER>_<HOST>_BASE_URL` for
 * providers with several hosts), key from `<PROVIDER>_API_KEY` or the provider's own name.
 */
import type { KeyPlacement } from "./types.ts";

export interface ProviderHost {
  /** Environment variable holding the base URL. */
  baseUrlVar: string;
  /** The provider's public address. */
  defaultBaseUrl: string;
}

export interface ProviderDef {
  id: string;
  title: string;
  /** Hosts by name; `default` is used when a request names none. */
  hosts: { default: ProviderHost } & Record<string, ProviderHost>;
  /** The secret's variable, when the provider takes one. */
  keyVar?: string;
  /** Default key value when the provider publishes a public test key (TheMealDB's `1`). */
  defaultKey?: string;
  /** Where the client puts the key. */
  keyPlacement?: KeyPlacement;
  /**
   * Other variables the provider reads (optional contact strings etc.); with `query`, the client
   * sends a set variable's value as that query parameter on every request to the provider.
   */
  extraVars?: { name: string; description: string; query?: string }[];
  /**
   * Least time between the starts of two requests to the provider from this process, for providers
   * that publish a request rate (PROVIDERS.md). The client paces every attempt, retries included
   * (src/upstream/pacing.ts); unset means unpaced.
   */
  minIntervalMs?: number;
  /** Largest answer read from this provider (default UPSTREAM_MAX_RESPONSE_BYTES); SEC's XBRL instances need more. */
  maxResponseBytes?: number;
  /** Headers sent on every request to the provider (e.g. `accept`); a request's own headers win. */
  headers?: Record<string, string>;
}

export const PROVIDERS = {
  openalex: {
    id: "openalex",
    title: "OpenAlex",
    hosts: { default: { baseUrlVar: "OPENALEX_BASE_URL", defaultBaseUrl: "https://api.openalex.org" } },
    keyVar: "OPENALEX_API_KEY",
    keyPlacement: { in: "query", name: "api_key" },
    extraVars: [{ name: "OPENALEX_MAILTO", description: "contact e-mail sent as `mailto` (polite pool)", query: "mailto" }],
  },
  deezer: {
    id: "deezer",
    title: "Deezer",
    hosts: { default: { baseUrlVar: "DEEZER_BASE_URL", defaultBaseUrl: "https://api.deezer.com" } },
  },
  musicbrainz: {
    id: "musicbrainz",
    title: "MusicBrainz",
    hosts: { default: { baseUrlVar: "MUSICBRAINZ_BASE_URL", defaultBaseUrl: "https://musicbrainz.org" } },
    // "about 1 request a second" with a descriptive User-Agent (PROVIDERS.md).
    minIntervalMs: 1000,
  },
  themealdb: {
    id: "themealdb",
    title: "TheMealDB",
    hosts: { default: { baseUrlVar: "THEMEALDB_BASE_URL", defaultBaseUrl: "https://www.themealdb.com" } },
    keyVar: "THEMEALDB_API_KEY",
    defaultKey: "1",
    keyPlacement: { in: "path" },
  },
  serpapi: {
    id: "serpapi",
    title: "SerpApi",
    hosts: { default: { baseUrlVar: "SERPAPI_BASE_URL", defaultBaseUrl: "https://serpapi.com" } },
    keyVar: "SERPAPI_API_KEY",
    keyPlacement: { in: "query", name: "api_key" },
  },
  sec: {
    id: "sec",
    title: "SEC EDGAR",
    // data.sec.gov serves `submissions`; www.sec.gov the tickers file and the filing archives.
    hosts: {
      default: { baseUrlVar: "SEC_DATA_BASE_URL", defaultBaseUrl: "https://data.sec.gov" },
      www: { baseUrlVar: "SEC_WWW_BASE_URL", defaultBaseUrl: "https://www.sec.gov" },
    },
    // EDGAR is keyless but requires a descriptive User-Agent with a contact (PROVIDERS.md): the
    // contact is the provider's "key", sent as the User-Agent (key headers are set last, so it
    // replaces Quarry's own), and without it companies.financials is unavailable.
    keyVar: "SEC_USER_AGENT",
    keyPlacement: { in: "header", name: "user-agent" },
    // At most 10 requests a second (PROVIDERS.md, SEC's fair access policy).
    minIntervalMs: 100,
    // XBRL instances of large 10-Ks run to tens of megabytes (docs/providers.md, companies.financials).
    maxResponseBytes: 32 * 1024 * 1024,
  },
} as const satisfies Record<string, ProviderDef>;

export type ProviderId = keyof typeof PROVIDERS;

export function providerDef(id: string): ProviderDef | undefined {
  return (PROVIDERS as Record<string, ProviderDef>)[id];
}
