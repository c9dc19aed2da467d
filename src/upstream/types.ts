/**
 * The contract between adapters (pure mappers) and the one upstream HTTP client.
 * Adapters build an UpstreamRequest without any secret; the client adds base URL and key, sends it,
 * and checks the answer against the request's declared `response` (response-check.ts) before any
 * mapper reads it.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { ApiError } from "../errors.ts";
export type { ClientCredentials, KeyPlacement } from "../providers.ts";

/** What a request expects when its answer is not JSON: an HTML page, XML, plain text, or a PDF. */
export type DocumentKind = "html" | "xml" | "text" | "pdf";

/** What every request holds, whatever its answer. */
export interface RequestBase {
  /**
   * Provider id from the provider table (src/providers.ts); with `baseUrl`, just a name
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
  /** Non-2xx statuses that are answers, not failures (e.g. 404 meaning "no such item"). */
  acceptStatus?: number[];
  /**
   * Redirects (301, 302, 303, 307, 308) followed, at most this many hops; default 0: a redirect is
   * answered as its status. GET requests of a provider of the table only, and only to the provider's
   * own hosts: a relative Location, or an absolute one on one of its configured base URLs, or on one
   * of its public default base URLs (http or https: CELLAR's Locations are http), rewritten onto the
   * configured base URL. Every hop carries the request's headers (content negotiation) within the
   * same deadline; anything else is refused as provider_error.
   */
  redirects?: number;
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
  /**
   * The provider's own non-answers, recognised before the shape check: the error to answer instead
   * (SerpApi's `{error}`, Deezer's HTTP 200 `{error: {…}}`); `"no_results"` for a body that says the
   * provider found nothing (SerpApi's "hasn't returned any results", billed like an answer): it is
   * passed to the mapper unchecked, and the mapper reads it as an empty page; undefined for an
   * ordinary answer. Runs on every parsed JSON answer, whatever its status; the answer's headers
   * come with it (a rate limit's `x-ratelimit-*`). Provider families
   * share one (capabilities/shared/), never a copy per capability.
   */
  refusal?: (body: unknown, status: number, headers: Record<string, string | string[] | undefined>) => ApiError | "no_results" | undefined;
}

/**
 * A request whose answer is JSON, checked against `response`: a minimal TypeBox schema of exactly the
 * fields its mapper reads. The answer's body has that schema's static type. Only 2xx answers are
 * checked; the body of an accepted non-2xx status (`acceptStatus`) is not, so read only its status.
 */
export interface JsonRequest<S extends TSchema = TSchema> extends RequestBase {
  responseType?: "json";
  response: S;
}

/** A request whose answer is read as text: an HTML page, XML (parsed, then checked with `checkShape`), or plain text. */
export interface TextRequest extends RequestBase {
  responseType: "text";
  response: Exclude<DocumentKind, "pdf">;
}

/**
 * A request whose answer is read as received (a `Uint8Array`, no `text`): binary documents (legal.read's
 * PDFs), or documents whose exact bytes matter (hashed, decoded by their declared charset).
 */
export interface BytesRequest extends RequestBase {
  responseType: "bytes";
  response: DocumentKind;
}

export type UpstreamRequest = JsonRequest | TextRequest | BytesRequest;

export interface UpstreamResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  /**
   * The body as the provider sent it (before JSON parsing). A capability whose stored details are
   * mapped on read keeps it as its page's `source` (capabilities/types.ts, SearchPage).
   */
  text?: string;
  /** Set when the answer came from Quarry's cache of an identical request (answer-cache.ts), not the provider. */
  cached?: { ageMs: number };
}

/** The one client every provider call goes through: deadline, retries, errors, size cap, User-Agent. */
export interface UpstreamClient {
  /**
   * Send a request. Rejects with ApiError `provider_timeout` when `signal` aborts (the capability's
   * deadline) and `provider_error` on network errors, 5xx, 429 past the deadline, unparseable bodies,
   * challenge pages and answers that do not fit the declared response (UpstreamError, faults.ts).
   * With `clientGone`, no attempt (first, retry, or a paced turn) starts once it returns true: the
   * call rejects with ClientGone instead (errors.ts). An attempt already sent is let finish.
   */
  send<S extends TSchema>(request: JsonRequest<S>, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse<Static<S>>>;
  send(request: TextRequest, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse<string>>;
  send(request: BytesRequest, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse<Uint8Array>>;
  send(request: UpstreamRequest, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse<unknown>>;
  /** Whether the provider's key (if it needs one) is configured. */
  hasKey(provider: string): boolean;
  /** Log this client's warnings (drift, challenges, failures) there; the app attaches its logger once built. */
  attachLogger?(logger: { warn(obj: object, msg: string): void }): void;
  close(): Promise<void>;
}

/**
 * A look at each raw answer before the client reads it: it may throw the call's error. `accepted`:
 * the request accepts this status. The offline demo installs one (src/demo/no-recording.ts) so that a
 * request its recordings do not hold is said plainly; a live deployment has none.
 */
export type AnswerScreen = (
  req: UpstreamRequest,
  answer: { status: number; headers: Record<string, string | string[] | undefined> },
  accepted: boolean,
) => void;

/**
 * Where pages read by their address (the reader: web.read, web.search's `read`) are fetched from when
 * not from that address, and what to tell the caller about each one read that way. The address is
 * still checked as given, and the connection as made. A live deployment has none; tests and the
 * offline demo install the replay upstream's (src/demo/replay/page-route.ts).
 */
export interface PageRoute {
  /** The URL fetched in place of `url`. */
  target(url: URL): string;
  /** Notes on a page read through the route (`url`: the page's address), from the answer's headers. */
  notes(url: string, headers: Record<string, string | string[] | undefined>): string[];
}

