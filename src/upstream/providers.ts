/**
 * The provider table: every upstream host, the environment variables that configure it, and how
 * its key is attached. `docs/providers.md` and `.env.example` list the same variables (a test checks).
 *
 * Rule (PROVIDERS.md): base URL from `<PROVIDER>_BASE_URL` (or `<PROVIDER>_<HOST>_BASE_URL` for
 * providers with several hosts), key from `<PROVIDER>_API_KEY` or the provider's own name.
 */
import type { ClientCredentials, KeyPlacement } from "./types.ts";

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
  /**
   * The secret's variable, when the provider takes one. A source that calls the provider needs it
   * (is skipped, or its capability unavailable, without it) unless `keyOptional` says the provider
   * also answers without one.
   */
  keyVar?: string;
  /** The provider answers without its key too (at a lower rate): sources calling it do not need it. */
  keyOptional?: true;
  /** Default key value when the provider publishes a public test key (TheMealDB's `1`). */
  defaultKey?: string;
  /** Where the client puts the key. */
  keyPlacement?: KeyPlacement;
  /** Other variables the provider reads (listed in docs/providers.md and .env.example like its key). */
  extraVars?: { name: string; description: string }[];
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
  /**
   * Optional OAuth 2 client credentials (RFC 6749 4.4). With both variables set, the client gets an
   * application token from `tokenHost` + `tokenPath` (HTTP Basic with the id and secret, a form body)
   * and sends the provider's requests for its default host to `apiHost` with that bearer token,
   * renewed before it expires and once on a 401 (src/upstream/client-credentials.ts). Without them,
   * requests go to their own host unauthenticated. Adapters never see either.
   */
  clientCredentials?: ClientCredentials;
}

export const PROVIDERS = {
  openalex: {
    id: "openalex",
    title: "OpenAlex",
    hosts: { default: { baseUrlVar: "OPENALEX_BASE_URL", defaultBaseUrl: "https://api.openalex.org" } },
    keyVar: "OPENALEX_API_KEY",
    keyOptional: true,
    keyPlacement: { in: "query", name: "api_key" },
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
  gutendex: {
    id: "gutendex",
    title: "Gutendex",
    hosts: { default: { baseUrlVar: "GUTENDEX_BASE_URL", defaultBaseUrl: "https://gutendex.com" } },
  },
  gutenberg: {
    id: "gutenberg",
    title: "Project Gutenberg",
    // classics.search details: the opening of a book's plain-text file (docs/providers.md).
    hosts: { default: { baseUrlVar: "GUTENBERG_BASE_URL", defaultBaseUrl: "https://www.gutenberg.org" } },
  },
  wikisource: {
    id: "wikisource",
    title: "Wikisource",
    hosts: { default: { baseUrlVar: "WIKISOURCE_BASE_URL", defaultBaseUrl: "https://en.wikisource.org" } },
  },
  wger: {
    id: "wger",
    title: "wger",
    hosts: { default: { baseUrlVar: "WGER_BASE_URL", defaultBaseUrl: "https://wger.de" } },
  },
  realestate: {
    id: "realestate",
    title: "Zillow listing API (zillow-com1 on RapidAPI)",
    hosts: { default: { baseUrlVar: "REALESTATE_BASE_URL", defaultBaseUrl: "https://zillow-com1.p.rapidapi.com" } },
    keyVar: "REALESTATE_API_KEY",
    keyPlacement: { in: "header", name: "X-RapidAPI-Key" },
    // RapidAPI routes by this header; it names the default host (docs/providers.md, realestate.search).
    headers: { "X-RapidAPI-Host": "zillow-com1.p.rapidapi.com" },
  },
  bibleapi: {
    id: "bibleapi",
    title: "bible-api.com",
    hosts: { default: { baseUrlVar: "BIBLEAPI_BASE_URL", defaultBaseUrl: "https://bible-api.com" } },
    // 15 requests per 30 s per client (PROVIDERS.md; Rack::Attack in bible-api's app.rb): one every 2 s.
    minIntervalMs: 2000,
  },
  quran: {
    id: "quran",
    title: "quran.com API v4",
    hosts: { default: { baseUrlVar: "QURAN_BASE_URL", defaultBaseUrl: "https://api.quran.com/api/v4" } },
  },
  twitterapi: {
    id: "twitterapi",
    title: "twitterapi.io",
    hosts: { default: { baseUrlVar: "TWITTERAPI_BASE_URL", defaultBaseUrl: "https://api.twitterapi.io" } },
    keyVar: "TWITTERAPI_API_KEY",
    keyPlacement: { in: "header", name: "X-API-Key" },
  },
  // Keyless public JSON by default; with an OAuth client (PROVIDERS.md), application-only tokens and oauth.reddit.com.
  reddit: {
    id: "reddit",
    title: "Reddit",
    hosts: {
      default: { baseUrlVar: "REDDIT_BASE_URL", defaultBaseUrl: "https://www.reddit.com" },
      oauth: { baseUrlVar: "REDDIT_OAUTH_BASE_URL", defaultBaseUrl: "https://oauth.reddit.com" },
    },
    clientCredentials: {
      idVar: "REDDIT_CLIENT_ID",
      secretVar: "REDDIT_CLIENT_SECRET",
      tokenHost: "default",
      tokenPath: "/api/v1/access_token",
      apiHost: "oauth",
    },
  },
  openmeteo: {
    id: "openmeteo",
    title: "Open-Meteo",
    hosts: {
      default: { baseUrlVar: "OPENMETEO_BASE_URL", defaultBaseUrl: "https://api.open-meteo.com" },
      geocoding: { baseUrlVar: "OPENMETEO_GEOCODING_BASE_URL", defaultBaseUrl: "https://geocoding-api.open-meteo.com" },
    },
  },
  ors: {
    id: "ors",
    title: "openrouteservice",
    hosts: { default: { baseUrlVar: "ORS_BASE_URL", defaultBaseUrl: "https://api.openrouteservice.org" } },
    keyVar: "ORS_API_KEY",
    keyPlacement: { in: "header", name: "Authorization" },
  },
  osrm: {
    id: "osrm",
    title: "OSRM public demo server",
    hosts: { default: { baseUrlVar: "OSRM_BASE_URL", defaultBaseUrl: "https://router.project-osrm.org" } },
    // The demo server's usage policy: at most one request a second.
    minIntervalMs: 1000,
  },
  nominatim: {
    id: "nominatim",
    title: "Nominatim",
    hosts: { default: { baseUrlVar: "NOMINATIM_BASE_URL", defaultBaseUrl: "https://nominatim.openstreetmap.org" } },
    // Nominatim's usage policy: a descriptive User-Agent (the client's) and at most one request a second.
    minIntervalMs: 1000,
  },
  openlibrary: {
    id: "openlibrary",
    title: "Open Library",
    hosts: { default: { baseUrlVar: "OPENLIBRARY_BASE_URL", defaultBaseUrl: "https://openlibrary.org" } },
  },
  github: {
    id: "github",
    title: "GitHub",
    hosts: { default: { baseUrlVar: "GITHUB_BASE_URL", defaultBaseUrl: "https://api.github.com" } },
    // Optional: without it, repositories and issues search keep working at the unauthenticated rate.
    keyVar: "GITHUB_TOKEN",
    keyOptional: true,
    keyPlacement: { in: "header", name: "authorization", prefix: "Bearer " },
    headers: { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" },
  },
  patentsview: {
    id: "patentsview",
    title: "PatentsView",
    hosts: { default: { baseUrlVar: "PATENTSVIEW_BASE_URL", defaultBaseUrl: "https://search.patentsview.org" } },
    keyVar: "PATENTSVIEW_API_KEY",
    keyPlacement: { in: "header", name: "x-api-key" },
  },
  youtube: {
    id: "youtube",
    title: "YouTube Data API",
    hosts: { default: { baseUrlVar: "YOUTUBE_BASE_URL", defaultBaseUrl: "https://www.googleapis.com" } },
    keyVar: "YOUTUBE_API_KEY",
    keyPlacement: { in: "query", name: "key" },
  },
  // The transcript source (www.youtube.com: innertube player, timedtext). A provider of its own, not a
  // second host of `youtube`, so the Data API key is never sent there (innertube refuses it anyway).
  youtube_web: {
    id: "youtube_web",
    title: "YouTube (web player captions)",
    hosts: { default: { baseUrlVar: "YOUTUBE_WEB_BASE_URL", defaultBaseUrl: "https://www.youtube.com" } },
  },
  serper: {
    id: "serper",
    title: "Serper",
    hosts: { default: { baseUrlVar: "SERPER_BASE_URL", defaultBaseUrl: "https://google.serper.dev" } },
    keyVar: "SERPER_API_KEY",
    keyPlacement: { in: "header", name: "X-API-KEY" },
  },
  jina: {
    id: "jina",
    title: "Jina Reader",
    hosts: { default: { baseUrlVar: "JINA_BASE_URL", defaultBaseUrl: "https://r.jina.ai" } },
    keyVar: "JINA_API_KEY",
    keyPlacement: { in: "header", name: "Authorization", prefix: "Bearer " },
    // Jina Reader answers JSON (`{code, data: {title, url, content}}`) only when asked to.
    headers: { accept: "application/json" },
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
  // legal.search (us) and legal.read (case_index): CourtListener REST v4; the key as `Authorization: Token <key>`.
  courtlistener: {
    id: "courtlistener",
    title: "CourtListener",
    hosts: { default: { baseUrlVar: "COURTLISTENER_BASE_URL", defaultBaseUrl: "https://www.courtlistener.com" } },
    keyVar: "COURTLISTENER_API_KEY",
    keyPlacement: { in: "header", name: "Authorization", prefix: "Token " },
  },
  // legal.read (eu_official): EUR-Lex document HTML by CELEX. Whole acts run to several MB of HTML.
  eurlex: {
    id: "eurlex",
    title: "EUR-Lex",
    hosts: { default: { baseUrlVar: "EURLEX_BASE_URL", defaultBaseUrl: "https://eur-lex.europa.eu" } },
    maxResponseBytes: 16 * 1024 * 1024,
  },
  // legal.search (eu): the Publications Office's CELLAR SPARQL endpoint (keyless).
  eu_publications: {
    id: "eu_publications",
    title: "Publications Office of the EU (CELLAR)",
    hosts: { default: { baseUrlVar: "EU_PUBLICATIONS_BASE_URL", defaultBaseUrl: "https://publications.europa.eu" } },
  },
  // legal.read (us_reports): the Library of Congress item API and its file host (the reports' PDFs).
  loc: {
    id: "loc",
    title: "Library of Congress",
    hosts: {
      default: { baseUrlVar: "LOC_BASE_URL", defaultBaseUrl: "https://www.loc.gov" },
      tile: { baseUrlVar: "LOC_TILE_BASE_URL", defaultBaseUrl: "https://tile.loc.gov" },
    },
    // loc.gov's published limit for item requests is about 200 a minute.
    minIntervalMs: 300,
    maxResponseBytes: 32 * 1024 * 1024,
  },
  // legal.read (historical): the Avalon Project (Yale Law School) transcriptions of historical documents.
  avalon: {
    id: "avalon",
    title: "The Avalon Project (Yale Law School)",
    hosts: { default: { baseUrlVar: "AVALON_BASE_URL", defaultBaseUrl: "https://avalon.law.yale.edu" } },
  },
  // legal.read (historical): the United Nations' own page of the Universal Declaration of Human Rights.
  un: {
    id: "un",
    title: "United Nations",
    hosts: { default: { baseUrlVar: "UN_BASE_URL", defaultBaseUrl: "https://www.un.org" } },
  },
  // legal.read (historical): Gesetze im Internet (Federal Ministry of Justice), the Basic Law's English translation.
  gesetze: {
    id: "gesetze",
    title: "Gesetze im Internet (German Federal Ministry of Justice)",
    hosts: { default: { baseUrlVar: "GESETZE_BASE_URL", defaultBaseUrl: "https://www.gesetze-im-internet.de" } },
  },
} as const satisfies Record<string, ProviderDef>;

export type ProviderId = keyof typeof PROVIDERS;

export function providerDef(id: string): ProviderDef | undefined {
  return (PROVIDERS as Record<string, ProviderDef>)[id];
}

/** The variable a source calling `provider` needs set (its key, unless the provider also answers without one). */
export function requiredKeyOf(provider: ProviderId): string | undefined {
  const def: ProviderDef = PROVIDERS[provider];
  return def.keyVar !== undefined && def.keyOptional !== true ? def.keyVar : undefined;
}
