/**
 * The provider table: every upstream host, the environment variables that configure it, and how
 * its key is attached. `docs/providers.md` and `.env.example` list the same variables (a test checks).
 *
 * Rule (PROVIDERS.md): base URL from `<PROVIDER>_BASE_URL` (or `<PROVIDER>_<HOST>_BASE_URL` for
 * providers with several hosts), key from `<PROVIDER>_API_KEY` or the provider's own name.
 */
/** How a provider's key is attached to a request; the client does it, adapters never see keys. */
export type KeyPlacement =
  | { in: "query"; name: string }
  | { in: "header"; name: string; prefix?: string }
  /** The adapter writes `{api_key}` in the path; the client substitutes the encoded key. */
  | { in: "path" };

/**
 * A provider's optional OAuth 2 client (RFC 6749 4.4, client credentials): the variables holding its
 * id and secret, where its token is asked for (`tokenHost` + `tokenPath`), and the host the provider's
 * requests go to with that token (src/upstream/client-credentials.ts).
 */
export interface ClientCredentials {
  idVar: string;
  secretVar: string;
  tokenHost: string;
  tokenPath: string;
  apiHost: string;
}

export interface ProviderHost {
  /** Environment variable holding the base URL. */
  baseUrlVar: string;
  /** The provider's public address. */
  defaultBaseUrl: string;
}

/**
 * A provider's OAuth 2 client as the table declares it: where its token is asked for and where the
 * provider's requests go with it (ClientCredentials), and what providers that differ from RFC 6749's
 * defaults want instead (src/upstream/client-credentials.ts). Unset fields keep the defaults: no
 * `scope`, the token as `authorization: bearer <token>`, only default-host requests carry one.
 */
export interface OAuthClient extends ClientCredentials {
  /** The `scope` asked for with the token of default-host requests (a form field of the token request). */
  scope?: string;
  /**
   * Other hosts whose requests carry a token too, each with the scope asked for it (one token per
   * scope): `{ search: "search" }`. They keep their own host; only default-host requests go to `apiHost`.
   */
  scopedHosts?: Readonly<Record<string, string>>;
  /** The header that carries the token, bare, instead of `authorization: bearer <token>` (Quran Foundation: `x-auth-token`). */
  tokenHeader?: string;
  /** A header that carries the client id beside the token (Quran Foundation: `x-client-id`). */
  clientIdHeader?: string;
  /** What kind of client the operator needs, said when the token endpoint refuses the credentials. */
  clientKind?: string;
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
  /**
   * `minIntervalMs` while the provider's OAuth client (`clientCredentials`) is configured: an
   * authenticated client is allowed more (Reddit: 100 queries a minute per OAuth client id, against
   * about 10 a minute keyless).
   */
  minIntervalMsWithClient?: number;
  /**
   * The variable (one of `extraVars`) that replaces the pacing interval, in milliseconds (0 turns
   * pacing off), for providers whose allowance depends on the account (twitterapi.io: one request
   * every 5 s until the account is topped up, 20 a second after). See `pacingIntervalOf`.
   */
  intervalVar?: string;
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
  clientCredentials?: OAuthClient;
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
    // Unset, TheMealDB's public test key `1` is sent (development only; production sets a supporter
    // key: docs/providers.md): a source calling TheMealDB never lacks a key.
    keyOptional: true,
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
    // classics.search details: the opening of a book's plain-text file (docs/providers.md). Project
    // Gutenberg's own mirror: www.gutenberg.org is for human readers and blocks automated access.
    hosts: { default: { baseUrlVar: "GUTENBERG_BASE_URL", defaultBaseUrl: "https://gutenberg.pglaf.org" } },
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
  // scripture.search (quran): the keyless api.quran.com v4 by default. With a Quran Foundation API client
  // (QURAN_CLIENT_ID and QURAN_CLIENT_SECRET), the same verse requests go to its Content API with a token
  // of scope `content`, and full-text search to its Search API with one of scope `search`; the token
  // goes in `x-auth-token`, the client id in `x-client-id` (docs/providers.md, scripture.search).
  quran: {
    id: "quran",
    title: "Quran.com API (Quran Foundation)",
    hosts: {
      default: { baseUrlVar: "QURAN_BASE_URL", defaultBaseUrl: "https://api.quran.com/api/v4" },
      content: { baseUrlVar: "QURAN_CONTENT_BASE_URL", defaultBaseUrl: "https://apis.quran.foundation/content/api/v4" },
      search: { baseUrlVar: "QURAN_SEARCH_BASE_URL", defaultBaseUrl: "https://apis.quran.foundation/search" },
      oauth2: { baseUrlVar: "QURAN_OAUTH2_BASE_URL", defaultBaseUrl: "https://oauth2.quran.foundation" },
    },
    clientCredentials: {
      idVar: "QURAN_CLIENT_ID",
      secretVar: "QURAN_CLIENT_SECRET",
      tokenHost: "oauth2",
      tokenPath: "/oauth2/token",
      apiHost: "content",
      scope: "content",
      scopedHosts: { search: "search" },
      tokenHeader: "x-auth-token",
      clientIdHeader: "x-client-id",
      clientKind: "a Quran Foundation API client with the `content` scope, and `search` for full-text queries",
    },
  },
  twitterapi: {
    id: "twitterapi",
    title: "twitterapi.io",
    hosts: { default: { baseUrlVar: "TWITTERAPI_BASE_URL", defaultBaseUrl: "https://api.twitterapi.io" } },
    keyVar: "TWITTERAPI_API_KEY",
    keyPlacement: { in: "header", name: "X-API-Key" },
    // docs.twitterapi.io/rate-limits: an account that never topped up gets one request every 5 s (the
    // safe default); a funded one 20 a second (TWITTERAPI_MIN_INTERVAL_MS=50), Scale 50, Business 500.
    minIntervalMs: 5000,
    intervalVar: "TWITTERAPI_MIN_INTERVAL_MS",
    extraVars: [
      {
        name: "TWITTERAPI_MIN_INTERVAL_MS",
        description: "least milliseconds between twitterapi.io requests (default 5000: an account never topped up; 50 for a funded one's 20 a second; 0 unpaced)",
      },
    ],
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
    // Keyless clients get about 10 requests a minute (PROVIDERS.md); an OAuth client 100 a minute per
    // client id (Reddit Data API Wiki). REDDIT_MIN_INTERVAL_MS replaces either.
    minIntervalMs: 6000,
    minIntervalMsWithClient: 600,
    intervalVar: "REDDIT_MIN_INTERVAL_MS",
    extraVars: [
      {
        name: "REDDIT_MIN_INTERVAL_MS",
        description: "least milliseconds between Reddit requests (default 6000 keyless, about 10 a minute; 600 with the OAuth client, 100 a minute; 0 unpaced)",
      },
    ],
  },
  openmeteo: {
    id: "openmeteo",
    title: "Open-Meteo",
    hosts: {
      default: { baseUrlVar: "OPENMETEO_BASE_URL", defaultBaseUrl: "https://api.open-meteo.com" },
      geocoding: { baseUrlVar: "OPENMETEO_GEOCODING_BASE_URL", defaultBaseUrl: "https://geocoding-api.open-meteo.com" },
    },
    // The free API is for non-commercial use only (open-meteo.com/en/terms). A commercial deployment
    // points both hosts at the customer API (customer-api. / customer-geocoding-api.open-meteo.com)
    // and sets its subscription key, sent as `apikey`; without it the free API answers keyless.
    keyVar: "OPENMETEO_API_KEY",
    keyOptional: true,
    keyPlacement: { in: "query", name: "apikey" },
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
  // EUR-Lex's front end: not read since it answers automated clients with an AWS WAF challenge
  // (2025-11); legal.read reads the same texts from CELLAR. Only its probe calls it.
  eurlex: {
    id: "eurlex",
    title: "EUR-Lex",
    hosts: { default: { baseUrlVar: "EURLEX_BASE_URL", defaultBaseUrl: "https://eur-lex.europa.eu" } },
    maxResponseBytes: 16 * 1024 * 1024,
  },
  // The Publications Office's CELLAR (keyless): legal.search (eu) queries its SPARQL endpoint,
  // legal.read (eu_official) negotiates an act's HTML by CELEX. Whole acts run to several MB of HTML.
  eu_publications: {
    id: "eu_publications",
    title: "Publications Office of the EU (CELLAR)",
    hosts: { default: { baseUrlVar: "EU_PUBLICATIONS_BASE_URL", defaultBaseUrl: "https://publications.europa.eu" } },
    maxResponseBytes: 16 * 1024 * 1024,
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

/**
 * The least interval between request starts to a provider in this deployment (undefined or 0:
 * unpaced): the operator's `intervalVar` when set (`configured.minIntervalMs`, config.ts), else
 * `minIntervalMsWithClient` while the provider's OAuth client is configured, else `minIntervalMs`.
 */
export function pacingIntervalOf(def: ProviderDef, configured?: { client?: unknown; minIntervalMs?: number }): number | undefined {
  if (configured?.minIntervalMs !== undefined) return configured.minIntervalMs;
  if (configured?.client !== undefined && def.minIntervalMsWithClient !== undefined) return def.minIntervalMsWithClient;
  return def.minIntervalMs;
}

/** The variable a source calling `provider` needs set (its key, unless the provider also answers without one). */
export function requiredKeyOf(provider: ProviderId): string | undefined {
  const def: ProviderDef = PROVIDERS[provider];
  // A provider with a public default key (TheMealDB's `1`) always has one.
  return def.keyVar !== undefined && def.keyOptional !== true && def.defaultKey === undefined ? def.keyVar : undefined;
}
