/**
 * The one HTTP client for every provider (undici). It owns what adapters must not: base URLs and
 * keys from config, the capability's deadline (an AbortSignal) → 504 provider_timeout, network
 * errors / 5xx / unparseable or oversized bodies → 502 provider_error, bounded retries with jitter
 * for idempotent requests while the deadline allows, a per-provider circuit breaker, per-provider
 * request pacing (providers that publish a rate, per process: src/upstream/pacing.ts), and a
 * descriptive User-Agent. Keys are never logged: log lines name the provider and path only.
 */
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
import { REPLAY_MISS_HEADER } from "../replay/replay-headers.ts";
import { ClientTokens, tokenRequest } from "./client-credentials.ts";
import { deadlineOf } from "./deadlines.ts";
import { describeRate, Pacer, TooLateForTurn } from "./pacing.ts";
import { PROVIDERS, type ProviderDef, providerDef } from "./providers.ts";
import type { ClientCredentials, UpstreamClient, UpstreamRequest, UpstreamResponse } from "./types.ts";

/**
 * The client as one call sees it: every request carries the call's `clientGone`, so an adapter
 * (which passes only its deadline signal) starts no provider request for a caller that has gone.
 */
export function whileClientWaits(client: UpstreamClient, clientGone: () => boolean): UpstreamClient {
  return {
    send: (request, signal) => client.send(request, signal, clientGone),
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
  ) {
    super(message);
  }
}

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

function withQuery(url: string, query: UpstreamRequest["query"]): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.append(k, String(v));
  const qs = params.toString();
  return qs ? url + "?" + qs : url;
}

/**
 * The offline demo's answer for a request its recordings do not hold: said plainly, not as the
 * provider's 404 (nothing is wrong with the provider), and not retryable. `detail` follows the
 * opening words ("No recording of this request in the offline demo").
 */
export function demoNoRecording(detail: string, cause?: unknown): ApiError {
  return new ApiError("provider_error", `No recording of this request in the offline demo${detail}`, {
    retryable: false,
    hint:
      "The demo answers from recorded responses: each capability's inspect examples, and the follow-ups `npm run demo -- --check` " +
      "runs (the first example's more, update and its first record's actions); other queries, pages and records are mostly not " +
      "recorded. Run `npm start` (real providers) for them.",
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The breaker a request counts against: its own key, else its provider and host. */
function breakerKeyOf(req: UpstreamRequest): string {
  return req.breakerKey ?? (req.host === undefined || req.host === "default" ? req.provider : `${req.provider}:${req.host}`);
}

/** A provider failure that says the provider is unwell (counts toward its circuit breaker). */
class ProviderFailure extends ApiError {}

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

  constructor(
    private readonly config: Pick<Config, "providers" | "upstream"> & Partial<Pick<Config, "demo">>,
    private readonly logger?: UpstreamLogger,
    private readonly breakerSettings: BreakerSettings = {
      threshold: config.upstream.breakerThreshold,
      halfOpenAfterMs: config.upstream.breakerHalfOpenMs,
    },
    pacing: PacingSettings = {},
  ) {
    const paced: PacingSettings = {};
    for (const def of Object.values(PROVIDERS) as ProviderDef[]) {
      if (def.minIntervalMs !== undefined) paced[def.id] = def.minIntervalMs;
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
    if (provider.query) for (const [k, v] of Object.entries(provider.query)) params.set(k, v);
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

  async send<T = unknown>(
    req: UpstreamRequest,
    signal: AbortSignal,
    clientGone?: () => boolean,
  ): Promise<UpstreamResponse<T>> {
    const def = req.baseUrl === undefined && (req.host ?? "default") === "default" ? providerDef(req.provider) : undefined;
    const client = def?.clientCredentials === undefined ? undefined : this.config.providers[req.provider]?.client;
    if (def?.clientCredentials !== undefined && client !== undefined) return this.sendWithToken<T>(req, def.clientCredentials, client, signal, clientGone);
    return this.sendOnce<T>(req, signal, clientGone);
  }

  /**
   * A provider with an OAuth client configured: its default host's requests go to its API host with
   * the application's bearer token (client-credentials.ts); a 401 drops the token and the request is
   * sent once more with a new one.
   */
  private async sendWithToken<T>(
    req: UpstreamRequest,
    cc: ClientCredentials,
    client: { id: string; secret: string },
    signal: AbortSignal,
    clientGone: (() => boolean) | undefined,
  ): Promise<UpstreamResponse<T>> {
    const callerTakes401 = req.acceptStatus?.includes(401) ?? false;
    for (let round = 0; ; round++) {
      const token = await this.tokens.get(req.provider, signal, (s) => this.sendOnce(tokenRequest(req.provider, cc, client), s, undefined), cc);
      const res = await this.sendOnce<T>(
        { ...req, host: cc.apiHost, headers: { ...req.headers, authorization: `bearer ${token}` }, acceptStatus: [...(req.acceptStatus ?? []), 401] },
        signal,
        clientGone,
      );
      if (res.status !== 401) return res;
      this.tokens.drop(req.provider, token);
      if (round > 0) {
        if (callerTakes401) return res;
        throw new ApiError("provider_error", `${providerDef(req.provider)?.title ?? req.provider} refused a new access token (HTTP 401).`, {
          retryable: false,
          hint: `The OAuth client (${cc.idVar}) may lack access; nothing was charged. Unset ${cc.idVar} and ${cc.secretVar} to call without a token.`,
        });
      }
    }
  }

  private async sendOnce<T>(req: UpstreamRequest, signal: AbortSignal, clientGone: (() => boolean) | undefined): Promise<UpstreamResponse<T>> {
    try {
      return await this.breaker(breakerKeyOf(req)).execute(() => this.sendWithRetries<T>(req, signal, clientGone));
    } catch (err) {
      if (isBrokenCircuitError(err)) {
        throw new ApiError("provider_error", `${req.provider} is failing; calls to it are paused for a moment.`, {
          hint: `The provider failed repeatedly; try again in about ${Math.ceil(this.breakerSettings.halfOpenAfterMs / 1000)} s.`,
        });
      }
      throw err;
    }
  }

  private async sendWithRetries<T>(
    req: UpstreamRequest,
    signal: AbortSignal,
    clientGone: (() => boolean) | undefined,
  ): Promise<UpstreamResponse<T>> {
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
        return await this.attempt<T>(req, signal);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (signal.aborted) break;
        if (!(err instanceof AttemptError)) throw err;
        lastError = err;
        if (!err.retryable || attempt === maxAttempts - 1) break;
        const backoff = err.retryAfterMs ?? 100 * 2 ** attempt + Math.random() * 100;
        if (backoff > 2000) break; // a long Retry-After will not fit the deadline
        try {
          await sleep(backoff, signal);
        } catch {
          break;
        }
      }
    }
    if (signal.aborted) {
      throw new ProviderFailure("provider_timeout", `${req.provider} did not answer before the deadline.`, {
        hint: "The provider was too slow; retry later or narrow the request.",
      });
    }
    this.logger?.warn({ provider: req.provider, path: req.path, reason: lastError?.message }, "upstream call failed");
    throw new ProviderFailure("provider_error", `${req.provider} failed: ${lastError?.message ?? "unknown error"}.`, {
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
    const title = providerDef(provider)?.title ?? provider;
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

  private async attempt<T>(req: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse<T>> {
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
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, {
        method: req.method,
        dispatcher: this.agent,
        signal,
        headers: {
          "user-agent": this.config.upstream.userAgent,
          accept: req.responseType === "text" || req.responseType === "bytes" ? "*/*" : "application/json",
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
    let payload: string | Buffer;
    try {
      payload = await this.readCapped(res.body, res.headers["content-length"], signal, providerDef(req.provider)?.maxResponseBytes, req.responseType === "bytes");
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof AttemptError) throw err;
      throw new AttemptError("the response body was cut off", true);
    }
    const accepted = req.acceptStatus?.includes(status) ?? false;
    // A miss of the demo's recordings is said plainly, unless the request fetches an optional part
    // (its absence is then the reading): an adapter would report another 404 as the caller's id
    // not existing (found by an agent walkthrough: "EUR-Lex has no document" for a real CELEX).
    if (this.config.demo === true && res.headers[REPLAY_MISS_HEADER] !== undefined && !(accepted && req.optionalPart)) throw demoNoRecording(` (${req.provider} ${req.method} ${req.path}).`);
    if (status === 429) throw new AttemptError("rate limited by the provider (429)", true, parseRetryAfter(res.headers["retry-after"]));
    if (status >= 500 && !accepted) throw new AttemptError(`HTTP ${status}`, true);
    if ((status < 200 || status >= 300) && !accepted) {
      throw new ApiError("provider_error", `${req.provider} answered HTTP ${status}.`, {
        // A refusal, not a passing fault: the same request will be refused again.
        retryable: false,
        // provider_error is retryable by its code (spec 7), but a refusal (4xx) is not a passing fault.
        hint:
          status === 401 || status === 402 || status === 403
            ? "The provider refused this deployment's credentials or account; nothing was charged. Changing the request will not help; the operator has to."
            : "The provider refused this request; nothing was charged. The same request is likely to be refused again: change it, or try later.",
      });
    }
    if (typeof payload !== "string") return { status, headers: res.headers, body: new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength) as T };
    const text = payload;
    if (req.responseType === "text") return { status, headers: res.headers, body: text as T, text };
    try {
      return { status, headers: res.headers, body: JSON.parse(text) as T, text };
    } catch {
      throw new AttemptError("the response was not valid JSON", true);
    }
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
