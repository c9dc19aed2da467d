/**
 * The one HTTP client for every provider (undici). It owns what adapters must not: base URLs and
 * keys from config, the capability's deadline (an AbortSignal) → 504 provider_timeout, network
 * errors / 5xx / unparseable or oversized bodies → 502 provider_error, bounded retries with jitter
 * for idempotent requests while the deadline allows, a per-provider circuit breaker, per-provider
 * request pacing (providers that publish a rate, per process: src/upstream/pacing.ts), a provider's
 * own wait after a 429 (Retry-After) kept for every caller, bot challenges recognised
 * (challenge.ts), every answer checked against the request's declared response before a mapper
 * reads it (response-check.ts), and a descriptive User-Agent. Errors carry their kind (faults.ts).
 * Keys are never logged: log lines name the provider, path and pointer only.
 */
import type { Static } from "@sinclair/typebox";
import {
  type CircuitBreakerPolicy,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  isBrokenCircuitError,
} from "cockatiel";
import { Agent, request } from "undici";
import type { Config } from "../config.ts";
import { ApiError, ClientGone } from "../errors.ts";
import { challengeOf, looksLikeHtml } from "./challenge.ts";
import { ClientTokens, tokenHeaders, tokenRequest, type tokenResponse, tokenRoute } from "./client-credentials.ts";
import { deadlineOf } from "./deadlines.ts";
import { describeWait, UpstreamError, WARNED_FAULTS, warningOf } from "./faults.ts";
import { describeRate, Pacer, TooLateForTurn } from "./pacing.ts";
import { type OAuthClient, PROVIDERS, type ProviderDef, pacingIntervalOf, providerDef } from "../providers.ts";
import { checkJsonAnswer, ProviderDrift } from "./response-check.ts";
import type { AnswerScreen, UpstreamClient, UpstreamRequest, UpstreamResponse } from "./types.ts";

/**
 * The client as one call sees it: every request carries the call's `clientGone`, so an adapter
 * (which passes only its deadline signal) starts no provider request for a caller that has gone.
 */
export function whileClientWaits(client: UpstreamClient, clientGone: () => boolean): UpstreamClient {
  return {
    send: ((request: UpstreamRequest, signal: AbortSignal) => client.send(request, signal, clientGone)) as UpstreamClient["send"],
    hasKey: (provider) => client.hasKey(provider),
    close: () => client.close(),
  };
}

export interface UpstreamLogger {
  warn(obj: object, msg: string): void;
}

/** Thrown inside the attempt loop; says whether another attempt may help. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    /** The provider answered 429. */
    readonly rateLimited = false,
  ) {
    super(message);
  }
}

/** A provider's name as people know it. */
const titleOf = (provider: string) => providerDef(provider)?.title ?? provider;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const seconds = Number(v);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * How long a provider that answered 429 asks to be left alone: `Retry-After`, else the reset of its
 * rate-limit window (`x-ratelimit-reset`: seconds left, as Reddit sends it, or an epoch second, as
 * GitHub does), else unknown.
 */
function waitOf(headers: Record<string, string | string[] | undefined>): number | undefined {
  const retryAfter = parseRetryAfter(headers["retry-after"]);
  if (retryAfter !== undefined) return retryAfter;
  const reset = Number(headerText(headers["x-ratelimit-reset"]));
  if (!Number.isFinite(reset) || reset < 0) return undefined;
  return reset > 1_000_000_000 ? Math.max(0, reset * 1000 - Date.now()) : reset * 1000;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}

function withQuery(url: string, query: UpstreamRequest["query"]): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.append(k, String(v));
  const qs = params.toString();
  return qs ? url + "?" + qs : url;
}

/** Statuses followed for a request that allows redirects (`redirects`). */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * `url` as a path and query under `base` (its host and path prefix; its scheme too unless `anyScheme`,
 * which takes http or https), or undefined when it is elsewhere.
 */
function under(url: URL, base: string, anyScheme: boolean): { path: string; query?: Record<string, string> } | undefined {
  const b = new URL(base);
  if (url.host !== b.host || url.username !== "" || url.password !== "") return undefined;
  if (anyScheme ? url.protocol !== "http:" && url.protocol !== "https:" : url.protocol !== b.protocol) return undefined;
  const prefix = b.pathname.replace(/\/+$/, "");
  if (prefix !== "" && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return undefined;
  const query = Object.fromEntries(url.searchParams);
  return { path: url.pathname.slice(prefix.length) || "/", ...(Object.keys(query).length > 0 ? { query } : {}) };
}

/** The breaker a request counts against: its own key, else its provider and host. */
function breakerKeyOf(req: UpstreamRequest): string {
  return req.breakerKey ?? (req.host === undefined || req.host === "default" ? req.provider : `${req.provider}:${req.host}`);
}

/** A provider failure that says the provider is unwell (counts toward its circuit breaker). */
class ProviderFailure extends UpstreamError {}


/** A provider's wait shorter than this is only retried within the call; a longer one is kept for every caller. */
const KEEP_WAIT_MS = 1000;

export interface BreakerSettings {
  /** Consecutive failed calls that open the circuit. */
  threshold: number;
  /** How long an open circuit refuses calls before letting one trial through. */
  halfOpenAfterMs: number;
}

/**
 * Pacing by provider id, replacing the provider table's `minIntervalMs`: the least interval between
 * request starts (0 turns pacing off), or a Pacer of the caller's (tests observe its start times).
 * Ids outside the table may be paced too.
 */
export type PacingSettings = Record<string, number | Pacer>;

export class HttpUpstreamClient implements UpstreamClient {
  private readonly agent: Agent;
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();
  /** Only paced providers have an entry: an unpaced call costs one lookup. */
  private readonly pacers = new Map<string, Pacer>();
  /** Application tokens of providers with an OAuth client configured. */
  private readonly tokens = new ClientTokens();
  /** Until when (Date.now) a provider asked to be left alone after a 429, by breaker key. */
  private readonly waitUntil = new Map<string, number>();

  constructor(
    private readonly config: Pick<Config, "providers" | "upstream">,
    private logger?: UpstreamLogger,
    private readonly breakerSettings: BreakerSettings = {
      threshold: config.upstream.breakerThreshold,
      halfOpenAfterMs: config.upstream.breakerHalfOpenMs,
    },
    pacing: PacingSettings = {},
    /** Looks at every raw answer before it is read (installed by the offline demo; none in production). */
    private readonly screen?: AnswerScreen,
  ) {
    const paced: PacingSettings = {};
    for (const def of Object.values(PROVIDERS) as ProviderDef[]) {
      // The table's interval, or the one the deployment's configuration gives (an OAuth client, an operator's variable).
      const interval = pacingIntervalOf(def, config.providers[def.id]);
      if (interval !== undefined) paced[def.id] = interval;
    }
    for (const [id, p] of Object.entries({ ...paced, ...pacing })) {
      if (p instanceof Pacer) this.pacers.set(id, p);
      else if (p > 0) this.pacers.set(id, new Pacer(p));
    }
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: 128,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  private breaker(provider: string): CircuitBreakerPolicy {
    let policy = this.breakers.get(provider);
    if (!policy) {
      policy = circuitBreaker(
        handleWhen((err) => err instanceof ProviderFailure),
        {
          halfOpenAfter: this.breakerSettings.halfOpenAfterMs,
          breaker: new ConsecutiveBreaker(this.breakerSettings.threshold),
        },
      );
      this.breakers.set(provider, policy);
    }
    return policy;
  }

  /** The breaker state of a provider (or `provider:host`, or a request's `breakerKey`), for health checks and tests. */
  breakerState(provider: string): string {
    const state = this.breakers.get(provider)?.state;
    return state === undefined ? "closed" : ["closed", "open", "half-open", "isolated"][state] ?? String(state);
  }

  /** A paced provider's queue (requests waiting, pending timer; tests read it); undefined when not paced. */
  pacingState(provider: string): { intervalMs: number; waiting: number; timer: boolean } | undefined {
    const pacer = this.pacers.get(provider);
    return pacer === undefined ? undefined : { intervalMs: pacer.intervalMs, ...pacer.state() };
  }

  attachLogger(logger: UpstreamLogger): void {
    this.logger ??= logger;
  }

  hasKey(provider: string): boolean {
    return Boolean(this.config.providers[provider]?.apiKey);
  }

  /** Build the full URL with the key placed as the provider requires. Never logged. */
  private buildUrl(req: UpstreamRequest): { url: string; headers: Record<string, string> } {
    // An operator-declared endpoint: the request's own headers carry its key (set by its mapper).
    if (req.baseUrl !== undefined) {
      return { url: withQuery(req.baseUrl.replace(/\/+$/, "") + req.path, req.query), headers: {} };
    }
    const def = providerDef(req.provider);
    const provider = this.config.providers[req.provider];
    if (!def || !provider) throw new ApiError("internal_error", `Unknown provider ${req.provider}.`);
    const base = provider.hosts[req.host ?? "default"];
    if (!base) throw new ApiError("internal_error", `Unknown host ${req.host} of provider ${req.provider}.`);
    const headers: Record<string, string> = { ...def.headers, ...req.headers };
    let path = req.path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) params.append(k, String(v));
    const key = provider.apiKey;
    const placement = def.keyPlacement;
    if (placement && key) {
      if (placement.in === "query") params.set(placement.name, key);
      else if (placement.in === "header") headers[placement.name.toLowerCase()] = (placement.prefix ?? "") + key;
    }
    if (path.includes("{api_key}")) path = path.replace("{api_key}", encodeURIComponent(key ?? ""));
    const qs = params.toString();
    return { url: base + path + (qs ? "?" + qs : ""), headers };
  }

  send: UpstreamClient["send"] = ((req: UpstreamRequest, signal: AbortSignal, clientGone?: () => boolean): Promise<UpstreamResponse<unknown>> => {
    const cc = req.baseUrl === undefined ? providerDef(req.provider)?.clientCredentials : undefined;
    const client = cc === undefined ? undefined : this.config.providers[req.provider]?.client;
    const route = cc === undefined || client === undefined ? undefined : tokenRoute(cc, req.host ?? "default");
    if (cc !== undefined && client !== undefined && route !== undefined) return this.sendWithToken(req, cc, route, client, signal, clientGone);
    return this.sendOnce(req, signal, clientGone);
  }) as UpstreamClient["send"];

  /**
   * A provider with an OAuth client configured: its default host's requests go to its API host (and
   * requests to its scoped hosts to their own) with the application's token of the route's scope
   * (client-credentials.ts: tokenRoute, tokenHeaders); a 401 drops the token and the request is sent
   * once more with a new one.
   */
  private async sendWithToken(
    req: UpstreamRequest,
    cc: OAuthClient,
    route: { host: string; scope?: string },
    client: { id: string; secret: string },
    signal: AbortSignal,
    clientGone: (() => boolean) | undefined,
  ): Promise<UpstreamResponse<unknown>> {
    const callerTakes401 = req.acceptStatus?.includes(401) ?? false;
    for (let round = 0; ; round++) {
      const token = await this.tokens.get(
        req.provider,
        signal,
        // The token request itself goes to its own host without a token (sendOnce, not send).
        (s) => this.sendOnce(tokenRequest(req.provider, cc, client, route.scope), s, undefined) as Promise<UpstreamResponse<Static<typeof tokenResponse>>>,
        cc,
        route.scope,
      );
      const res = await this.sendOnce(
        { ...req, host: route.host, headers: { ...req.headers, ...tokenHeaders(cc, token, client.id) }, acceptStatus: [...(req.acceptStatus ?? []), 401] },
        signal,
        clientGone,
      );
      if (res.status !== 401) return res;
      this.tokens.drop(req.provider, token, route.scope);
      if (round > 0) {
        if (callerTakes401) return res;
        throw new UpstreamError("provider_error", `${titleOf(req.provider)} refused a new access token (HTTP 401).`, "key_refused", req.provider, {
          retryable: false,
          hint: `The OAuth client (${cc.idVar}) may lack access; nothing was charged. Unset ${cc.idVar} and ${cc.secretVar} to call without a token.`,
        });
      }
    }
  }

  private async sendOnce(req: UpstreamRequest, signal: AbortSignal, clientGone: (() => boolean) | undefined): Promise<UpstreamResponse<unknown>> {
    const key = breakerKeyOf(req);
    const until = this.waitUntil.get(key);
    if (until !== undefined) {
      const left = until - Date.now();
      if (left > 0) throw this.rateLimited(req.provider, left, false);
      this.waitUntil.delete(key);
    }
    try {
      return await this.breaker(key).execute(() => this.sendWithRetries(req, signal, clientGone));
    } catch (err) {
      if (isBrokenCircuitError(err)) {
        throw new UpstreamError("provider_error", `${req.provider} is failing; calls to it are paused for a moment.`, "unreachable", req.provider, {
          hint: `The provider failed repeatedly; try again in about ${Math.ceil(this.breakerSettings.halfOpenAfterMs / 1000)} s.`,
        });
      }
      if (err instanceof UpstreamError && WARNED_FAULTS.has(err.fault) && this.logger !== undefined && !err.logged) {
        err.logged = true;
        this.logger.warn({ provider: req.provider, path: req.path, fault: err.fault, ...(err.pointer === undefined ? {} : { pointer: err.pointer }) }, warningOf(err.fault));
      }
      if (err instanceof UpstreamError && err.fault === "rate_limited" && err.retryAfter !== undefined && err.retryAfter * 1000 >= KEEP_WAIT_MS) {
        this.waitUntil.set(key, Date.now() + err.retryAfter * 1000);
      }
      throw err;
    }
  }

  /**
   * The provider answered 429 (`asked`), or asked earlier to be left alone and `waitMs` of that wait
   * is left: `502 provider_error`, retryable, with the wait in the hint and as Retry-After.
   */
  private rateLimited(provider: string, waitMs: number | undefined, asked: boolean): UpstreamError {
    const title = titleOf(provider);
    const wait = waitMs === undefined ? "" : ` and asks to wait ${describeWait(waitMs)}`;
    return new ProviderFailure(
      "provider_error",
      asked ? `${title} is rate limiting this deployment (HTTP 429)${wait}.` : `${title} asked this deployment to wait before calling it again (HTTP 429): ${describeWait(waitMs ?? 0)} left; it was not called.`,
      "rate_limited",
      provider,
      {
        retryable: true,
        hint: `The provider's limit applies to every caller of this deployment; nothing was charged. Retry after ${waitMs === undefined ? "a short wait" : describeWait(waitMs)}.`,
        ...(waitMs === undefined ? {} : { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) }),
      },
    );
  }

  private async sendWithRetries(
    req: UpstreamRequest,
    signal: AbortSignal,
    clientGone: (() => boolean) | undefined,
  ): Promise<UpstreamResponse<unknown>> {
    const idempotent = req.idempotent ?? req.method === "GET";
    const maxAttempts = idempotent ? 1 + this.config.upstream.maxRetries : 1;
    let lastError: AttemptError | undefined;
    const pacer = this.pacers.get(req.provider);
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (signal.aborted) break;
      // Not a ProviderFailure: the provider was not called, its breaker does not count it.
      if (clientGone?.()) throw new ClientGone();
      if (pacer !== undefined) {
        try {
          await pacer.take(signal, deadlineOf(signal), clientGone);
        } catch (err) {
          if (err instanceof ClientGone) throw err;
          // A retry that cannot start in time reports the failure it was retrying.
          if (lastError !== undefined) break;
          throw this.notPaced(req.provider, pacer, err);
        }
      }
      try {
        return await this.attempt(req, signal);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (signal.aborted) break;
        if (!(err instanceof AttemptError)) throw err;
        lastError = err;
        if (!err.retryable || attempt === maxAttempts - 1) break;
        const backoff = err.retryAfterMs ?? 100 * 2 ** attempt + Math.random() * 100;
        // Never waited for past the deadline (nor longer than 2 s: a long Retry-After is the caller's to wait).
        const deadline = deadlineOf(signal);
        if (backoff > 2000 || (deadline !== undefined && performance.now() + backoff >= deadline)) break;
        try {
          await sleep(backoff, signal);
        } catch {
          break;
        }
      }
    }
    if (signal.aborted) {
      throw new ProviderFailure("provider_timeout", `${req.provider} did not answer before the deadline.`, "timeout", req.provider, {
        hint: "The provider was too slow; retry later or narrow the request.",
      });
    }
    this.logger?.warn({ provider: req.provider, path: req.path, reason: lastError?.message }, "upstream call failed");
    if (lastError?.rateLimited) throw this.rateLimited(req.provider, lastError.retryAfterMs, true);
    throw new ProviderFailure("provider_error", `${req.provider} failed: ${lastError?.message ?? "unknown error"}.`, "unreachable", req.provider, {
      hint: "The upstream provider failed; nothing was charged. Retry shortly.",
      ...(lastError?.retryAfterMs === undefined ? {} : { retryAfter: Math.ceil(lastError.retryAfterMs / 1000) }),
    });
  }

  /**
   * The first attempt did not get its turn: refused because the turn would come after the deadline, or
   * aborted while waiting. Not a ProviderFailure: the provider was not called, its breaker is not moved.
   * Nothing is charged (billing releases the hold on any error).
   */
  private notPaced(provider: string, pacer: Pacer, err: unknown): ApiError {
    const title = titleOf(provider);
    const hint = `${title} allows ${describeRate(pacer.intervalMs)} and other requests are waiting for it; nothing was charged. Retry in a few seconds.`;
    if (err instanceof TooLateForTurn) {
      return new ApiError("provider_error", `${provider} was not called: its turn would come after the request's deadline.`, {
        hint,
        retryAfter: Math.max(1, Math.ceil(err.waitMs / 1000)),
      });
    }
    return new ApiError("provider_timeout", `${provider} was not called before the deadline: the request was waiting for its turn.`, {
      hint,
      cause: err,
    });
  }

  private async attempt(req: UpstreamRequest, signal: AbortSignal, hop = 0): Promise<UpstreamResponse<unknown>> {
    const { url, headers } = this.buildUrl(req);
    // Field values the schema allows (a 16,384-character token of emoji) can make a URL no server takes;
    // servers reset the connection or answer 414. Refused here, it is not a provider fault: the breaker
    // does not count it, so one caller's long values never pause a provider for the others.
    const urlBytes = Buffer.byteLength(url);
    if (urlBytes > this.config.upstream.maxUrlBytes) {
      throw new ApiError("provider_error", `The request to ${req.provider} would need a URL of ${urlBytes} bytes; providers take at most ${this.config.upstream.maxUrlBytes}.`, {
        retryable: false,
        hint: "Quarry refused to send it: servers refuse URLs that long. Shorten the longest values of the request (a query, a token); percent-encoded, each non-ASCII character takes up to 12 bytes. Nothing was charged.",
      });
    }
    const body = req.form !== undefined ? new URLSearchParams(req.form).toString() : req.body === undefined ? undefined : JSON.stringify(req.body);
    const contentType = req.form !== undefined ? "application/x-www-form-urlencoded" : "application/json";
    const binary = req.responseType === "bytes";
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, {
        method: req.method,
        dispatcher: this.agent,
        signal,
        headers: {
          "user-agent": this.config.upstream.userAgent,
          accept: req.responseType === "text" || binary ? "*/*" : "application/json",
          ...(body === undefined ? {} : { "content-type": contentType }),
          ...(req.baseUrl !== undefined ? req.headers : {}),
          ...headers,
        },
        ...(body === undefined ? {} : { body }),
      });
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as { code?: string }).code ?? (err as Error).name;
      throw new AttemptError(`network error (${code})`, true);
    }
    const status = res.statusCode;
    if (REDIRECTS.has(status) && (req.redirects ?? 0) > 0 && !(req.acceptStatus?.includes(status) ?? false)) {
      await res.body.dump().catch(() => undefined);
      return this.attempt(this.redirected(req, url, res.headers.location, hop), signal, hop + 1);
    }
    let payload: string | Buffer;
    try {
      payload = await this.readCapped(res.body, res.headers["content-length"], signal, providerDef(req.provider)?.maxResponseBytes, binary);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof AttemptError) throw err;
      throw new AttemptError("the response body was cut off", true);
    }
    const accepted = req.acceptStatus?.includes(status) ?? false;
    // The deployment's screen of raw answers, when it has one (the offline demo's: src/demo).
    this.screen?.(req, { status, headers: res.headers }, accepted);
    // A challenge answers with any status (AWS WAF: 202, Cloudflare: 403 or 503): recognised first.
    const challenge = challengeOf(res.headers, typeof payload === "string" ? payload : payload.subarray(0, 16_384).toString("latin1"));
    if (challenge !== undefined) {
      throw new UpstreamError("provider_error", `${titleOf(req.provider)} answered with a bot challenge (${challenge}) instead of its answer.`, "challenged", req.provider, {
        retryable: false,
        hint: "The provider's bot protection refused this deployment's requests; nothing was charged. It may pass later or from another network; the operator can see it with `quarry providers check`.",
      });
    }
    if (status === 429) throw new AttemptError("rate limited by the provider (429)", true, waitOf(res.headers), true);
    if (status >= 500 && !accepted) throw new AttemptError(`HTTP ${status}`, true);
    if ((status < 200 || status >= 300) && !accepted) {
      // The provider's own error answer says more than the status (SerpApi's `{error}` with a 400).
      if (req.refusal !== undefined && typeof payload === "string") {
        const refused = req.refusal(parseOrUndefined(payload), status, res.headers);
        if (refused !== undefined && refused !== "no_results") throw refused;
      }
      const keyRefused = status === 401 || status === 402 || status === 403;
      throw new UpstreamError("provider_error", `${req.provider} answered HTTP ${status}.`, keyRefused ? "key_refused" : "refused", req.provider, {
        // A refusal, not a passing fault: the same request will be refused again.
        retryable: false,
        // provider_error is retryable by its code (spec 7), but a refusal (4xx) is not a passing fault.
        hint: keyRefused
          ? "The provider refused this deployment's credentials or account; nothing was charged. Changing the request will not help; the operator has to."
          : "The provider refused this request; nothing was charged. The same request is likely to be refused again: change it, or try later.",
      });
    }
    const ok = status >= 200 && status < 300;
    if (typeof payload !== "string") {
      // A PDF starts with its signature; anything else (an HTML error page with status 200) is not the document.
      if (ok && req.response === "pdf" && payload.subarray(0, 1024).toString("latin1").indexOf("%PDF-") < 0) {
        throw new ProviderDrift(req.provider, "", "is not a PDF document");
      }
      return { status, headers: res.headers, body: new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength) };
    }
    const text = payload;
    if (req.responseType === "text") {
      if (ok && (req.response === "xml" || req.response === "text") && looksLikeHtml(text)) {
        throw new ProviderDrift(req.provider, "", `is an HTML page where ${req.response === "xml" ? "XML" : "plain text"} was expected`);
      }
      return { status, headers: res.headers, body: text, text };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A page where JSON was expected is a changed or moved API (a login wall, a retired endpoint), not a passing fault.
      if (ok && looksLikeHtml(text, headerText(res.headers["content-type"]))) throw new ProviderDrift(req.provider, "", "is an HTML page where JSON was expected");
      throw new AttemptError("the response was not valid JSON", true);
    }
    checkJsonAnswer(req, status, parsed, res.headers);
    return { status, headers: res.headers, body: parsed, text };
  }

  /**
   * The next hop of a redirect the request allows (`redirects`): the same request at the Location, on
   * one of the provider's own hosts (a relative Location, one on a configured base URL, or one on a
   * public default base URL, http or https, rewritten onto the configured one). Anything else, or a
   * hop past the limit, is refused: provider_error, not retried.
   */
  private redirected(req: UpstreamRequest, from: string, location: string | string[] | undefined, hop: number): UpstreamRequest {
    const refuse = (why: string) =>
      new UpstreamError("provider_error", `${titleOf(req.provider)} redirected the request ${why}; Quarry did not follow it.`, "refused", req.provider, {
        retryable: false,
        hint: "Quarry follows a provider's redirects only to the provider's own hosts, a few hops at most; nothing was charged. The operator can see it with `quarry providers check`.",
      });
    if (req.method !== "GET" || req.baseUrl !== undefined) throw refuse("(only GET requests to a provider of the table follow redirects)");
    const most = req.redirects ?? 0;
    if (hop >= most) throw refuse(`more than ${most} time${most === 1 ? "" : "s"}`);
    if (typeof location !== "string" || location === "") throw refuse("without a Location");
    const def = providerDef(req.provider);
    const configured = this.config.providers[req.provider]?.hosts ?? {};
    const current = configured[req.host ?? "default"];
    let target: { host: string; path: string; query?: Record<string, string> } | undefined;
    let shown = location;
    try {
      const resolved = new URL(location, from);
      shown = resolved.origin;
      for (const [host, base] of Object.entries(configured)) {
        const at = under(resolved, base, false);
        if (at !== undefined) target ??= { host, ...at };
      }
      // Resolved against the provider's public address of this request, checked against its public hosts.
      const publicBase = def?.hosts[req.host ?? "default"]?.defaultBaseUrl;
      if (target === undefined && publicBase !== undefined && current !== undefined && from.startsWith(current)) {
        const onPublic = new URL(location, publicBase + from.slice(current.length));
        shown = onPublic.origin;
        for (const [host, h] of Object.entries(def?.hosts ?? {})) {
          const at = under(onPublic, h.defaultBaseUrl, true);
          if (at !== undefined) target ??= { host, ...at };
        }
      }
    } catch {
      throw refuse("to an address that is not a URL");
    }
    if (target === undefined) throw refuse(`to ${shown}, which is not one of its hosts`);
    const { query: _, ...rest } = req;
    return { ...rest, host: target.host, path: target.path, ...(target.query === undefined ? {} : { query: target.query }) };
  }

  /** Read the body as text (or as bytes, for `responseType: "bytes"`), refusing more than the configured size. */
  private async readCapped(
    body: AsyncIterable<Buffer> & { destroy(err?: Error): void; text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer> },
    contentLength: string | string[] | undefined,
    signal: AbortSignal,
    providerMax: number | undefined,
    binary: boolean,
  ): Promise<string | Buffer> {
    const max = providerMax ?? this.config.upstream.maxResponseBytes;
    // A declared length is enforced by the HTTP parser: within the cap, read it whole (no chunk loop).
    const declared = typeof contentLength === "string" && /^\d+$/.test(contentLength) ? Number(contentLength) : undefined;
    if (declared !== undefined) {
      if (declared > max) {
        body.destroy();
        throw new AttemptError(`the response exceeded ${max} bytes`, false);
      }
      return binary ? Buffer.from(await body.arrayBuffer()) : body.text();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        throw new AttemptError(`the response exceeded ${max} bytes`, false);
      }
      chunks.push(chunk);
      if (signal.aborted) break;
    }
    const all = Buffer.concat(chunks);
    return binary ? all : all.toString("utf8");
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
