/**
 * The upstream client's errors, by what went wrong at the provider. Each is an ApiError with the
 * catalog's code (`provider_error` or `provider_timeout`), so callers answer it as they answer any
 * error; `fault` says which kind of failure it was, for the operator's live check (`quarry providers
 * check`) and for logs, without matching message text.
 */
import { ApiError, type ApiErrorOptions, type ErrorCode } from "../errors.ts";

/**
 * - `drift`: the answer does not have the shape Quarry reads (a field the mapper reads is missing or of
 *   another type, or an HTML page came where JSON was expected);
 * - `challenged`: a bot challenge or block page answered (a web application firewall in front of the provider);
 * - `key_refused`: the provider refused this deployment's key or account (401, 402, 403);
 * - `rate_limited`: the provider answered 429, or asked Quarry to wait (Retry-After) and the wait is not over;
 * - `refused`: another 4xx: the provider refused this request;
 * - `unreachable`: network errors, 5xx, cut-off or unparseable bodies, after the retries;
 * - `timeout`: no answer before the deadline.
 */
export type FaultKind = "drift" | "challenged" | "key_refused" | "rate_limited" | "refused" | "unreachable" | "timeout";

export interface UpstreamErrorOptions extends ApiErrorOptions {
  /** Drift: the JSON pointer of the first field that did not fit ("" for the whole body). */
  pointer?: string;
}

export class UpstreamError extends ApiError {
  readonly pointer: string | undefined;
  /** Set once the fault has been logged (by the client, or where it was thrown), so it is logged once. */
  logged = false;

  constructor(
    code: Extract<ErrorCode, "provider_error" | "provider_timeout">,
    message: string,
    readonly fault: FaultKind,
    readonly provider: string,
    options: UpstreamErrorOptions = {},
  ) {
    const { pointer, ...rest } = options;
    super(code, message, rest);
    this.name = "UpstreamError";
    this.pointer = pointer;
  }
}

/** The fault kind of an error from the upstream client; undefined for any other error. */
export function faultOf(err: unknown): FaultKind | undefined {
  return err instanceof UpstreamError ? err.fault : undefined;
}

/** "3 h 20 min", "45 s": a provider's requested wait, for hints. */
export function describeWait(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `${min} min`;
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest === 0 ? `${h} h` : `${h} h ${rest} min`;
}

/** Faults logged as warnings when they happen: the provider changed, or its bot protection answered. */
export const WARNED_FAULTS: ReadonlySet<FaultKind> = new Set(["drift", "challenged"]);

/** The log message of a warned fault. */
export function warningOf(fault: FaultKind): string {
  return fault === "drift" ? "provider answer drifted" : "provider challenged the request";
}

/**
 * The first drift or challenge in `err`'s cause chain that has not been logged yet (one a mapper
 * threw after the client returned, or a fallback chain wrapped), marked as logged; else undefined.
 */
export function unloggedWarning(err: unknown): UpstreamError | undefined {
  let at: unknown = err;
  for (let depth = 0; depth < 6 && at instanceof Error; depth++, at = at.cause) {
    if (at instanceof UpstreamError && WARNED_FAULTS.has(at.fault) && !at.logged) {
      at.logged = true;
      return at;
    }
  }
  return undefined;
}
