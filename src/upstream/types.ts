/**
 * The contract between adapters (pure mappers) and the one upstream HTTP client.
 * Adapters build an UpstreamRequest without any secret; the client adds base URL and key.
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

export interface UpstreamRequest {
  /**
   * Provider id from the provider table (src/upstream/providers.ts); with `baseUrl`, just a name
   * for breakers and logs (e.g. `sharpen:family_b/model`).
   */
  provider: string;
  /**
   * Absolute base URL used instead of the provider table (operator-declared endpoints such as
   * Sharpen reviewers). The client then adds no key: the caller's mapper puts it in `headers`.
   */
  baseUrl?: string;
  /** Host name for providers with several hosts (e.g. SEC `data` / `www`); default host otherwise. */
  host?: string;
  method: "GET" | "POST";
  /** Path appended to the base URL, starting with "/". Not URL-encoded by the client beyond what it holds. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** JSON body for POST. */
  body?: unknown;
  /** Form body for POST (`application/x-www-form-urlencoded`), instead of `body`: OAuth token requests. */
  form?: Record<string, string>;
  /** Retry on transient failure inside the deadline. Defaults to true for GET, false for POST. */
  idempotent?: boolean;
  /**
   * How to read the body. Default `json`. `bytes`: the body as received (a `Uint8Array`, no `text`),
   * for binary documents such as PDFs (legal.read's United States Reports).
   */
  responseType?: "json" | "text" | "bytes";
  /** Non-2xx statuses that are answers, not failures (e.g. 404 meaning "no such item"). */
  acceptStatus?: number[];
  /**
   * The request fetches an optional part of an answer (a README, an editions list): its 404 means
   * only that the part is absent. In the offline demo a request without a recording is then read as
   * absent; any other request without one is answered "no recording", never as the provider's 404
   * (which an adapter would report as the caller's id not existing).
   */
  optionalPart?: true;
  /**
   * What this request's failures count against: one circuit breaker per key (default: the provider
   * and host), so one failing host of a provider does not pause the others.
   */
  breakerKey?: string;
}

export interface UpstreamResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  /**
   * The body as the provider sent it (before JSON parsing). A capability whose stored details are
   * mapped on read keeps it as its page's `source` (capabilities/types.ts, SearchPage).
   */
  text?: string;
}

/** The one client every provider call goes through: deadline, retries, errors, size cap, User-Agent. */
export interface UpstreamClient {
  /**
   * Send a request. Rejects with ApiError `provider_timeout` when `signal` aborts (the capability's
   * deadline) and `provider_error` on network errors, 5xx, 429 past the deadline, unparseable bodies.
   * With `clientGone`, no attempt (first, retry, or a paced turn) starts once it returns true: the
   * call rejects with ClientGone instead (errors.ts). An attempt already sent is let finish.
   */
  send<T = unknown>(request: UpstreamRequest, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse<T>>;
  /** Whether the provider's key (if it needs one) is configured. */
  hasKey(provider: string): boolean;
  close(): Promise<void>;
}
