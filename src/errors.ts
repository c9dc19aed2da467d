/**
 * The closed error catalog: every code the service can answer with, its HTTP status and
 * whether a client may retry. `docs/errors.md` documents each code; a test keeps them equal.
 */
import { didYouMean } from "./suggest.ts";

/** Every error code of spec section 7, plus the three whose statuses the project decides. */
export const ERROR_CODES = {
  /** 400: body or params failed validation; `violations[]` says where. */
  invalid_request: { status: 400, retryable: false },
  /** 401: missing, unknown, malformed or revoked key. */
  unauthorized: { status: 401, retryable: false },
  /** 402: the reservation for this call does not fit under the period cap. */
  credits_exhausted: { status: 402, retryable: false },
  /** 403: capability (or Sharpen) switched off on the plan, or a request not allowed (e.g. Origin). */
  capability_disabled: { status: 403, retryable: false },
  /** 404: no such capability. */
  capability_unknown: { status: 404, retryable: false },
  /** 404: no such record or search id visible to this account. */
  record_unknown: { status: 404, retryable: false },
  /** 404: no such route. */
  not_found: { status: 404, retryable: false },
  /** 410: search unused for 24 hours, or stored record detail no longer available. */
  session_expired: { status: 410, retryable: false },
  /** 429: over the per-key request rate. */
  rate_limited: { status: 429, retryable: true },
  /** 500: a fault inside the service; nothing was charged. */
  internal_error: { status: 500, retryable: true },
  /** 502: the upstream vendor failed. */
  provider_error: { status: 502, retryable: true },
  /** 503: no Sharpen reviewer answered. */
  sharpen_no_reviewer: { status: 503, retryable: true },
  /** 503: the vendor key of this capability is missing in this deployment. */
  capability_unavailable: { status: 503, retryable: false },
  /** 503: a dependency of the service (database, cache) is down; try again shortly. */
  service_unavailable: { status: 503, retryable: true },
  /** 504: the vendor deadline was hit. */
  provider_timeout: { status: 504, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One problem with one field; `path` is a JSON pointer ("" for the whole body). */
export interface Violation {
  path: string;
  message: string;
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    hint?: string;
    retryable: boolean;
    violations?: Violation[];
    requestId?: string;
  };
}

export interface ApiErrorOptions {
  hint?: string;
  violations?: Violation[];
  /** Seconds, sent as `Retry-After` (rate limits, upstream 429). */
  retryAfter?: number;
  /** Extra response headers (e.g. RateLimit-*). */
  headers?: Record<string, string>;
  cause?: unknown;
  /**
   * Whether retrying the same request can help, when it differs from the code's default: a provider
   * that refused this request (a 4xx) will likely refuse it again, though provider_error is
   * retryable when the provider failed.
   */
  retryable?: boolean;
  /**
   * The HTTP status when it is not the code's: only `not_found` for a path that is served under
   * other methods, answered 405 with `Allow` (docs/errors.md). Every other code keeps its status.
   */
  status?: 405;
}

/**
 * At most this many violations are listed; the message says how many there were. A 1 MiB body of
 * unknown keys would otherwise be answered with megabytes of violations.
 */
export const MAX_VIOLATIONS = 100;

/** The one error class: carries a catalog code and renders the spec envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly hint: string | undefined;
  readonly violations: Violation[] | undefined;
  readonly retryAfter: number | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    const listed = options.violations;
    const cut = listed !== undefined && listed.length > MAX_VIOLATIONS;
    super(
      cut ? `${message} (the first ${MAX_VIOLATIONS} of ${listed.length} violations are listed)` : message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.hint = options.hint;
    this.violations = cut ? listed.slice(0, MAX_VIOLATIONS) : listed;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }

  toEnvelope(requestId?: string): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.hint === undefined ? {} : { hint: this.hint }),
        retryable: this.retryable,
        ...(this.violations === undefined ? {} : { violations: this.violations }),
        ...(requestId === undefined ? {} : { requestId }),
      },
    };
  }
}

/**
 * Who made one call, as the services see it: the request id (ledger, logs, error envelope) and
 * whether the caller is still there to read the answer.
 */
export interface CallOrigin {
  requestId: string;
  /**
   * True once the caller's connection has closed (checked, never waited on). A call whose caller
   * has gone is abandoned before anything is committed: see ClientGone.
   */
  clientGone?: () => boolean;
  /**
   * Told each step of the call as it happens (a provider answered, a page was read, a reviewer
   * answered), for a caller that asked to follow a slow call (an MCP progressToken). Never waited on.
   */
  progress?: (step: string) => void;
  /** The caller asked for a fresh answer (REST `Cache-Control: no-cache`): Quarry's answer cache is not read. */
  fresh?: boolean;
}

/**
 * The caller closed its connection before its answer was ready. The call is abandoned: no provider
 * request is started for it any more, nothing is committed (no charge, no search stored) and
 * nothing is sent, since nobody would read it. Not an ApiError: it has no code in the catalog and
 * never reaches a client; it is logged.
 */
export class ClientGone extends Error {
  constructor(options?: { cause?: unknown }) {
    super("The client closed its connection before the answer was ready; the call was abandoned and not charged.", options);
    this.name = "ClientGone";
  }
}

/** The message of a stored record detail that is gone (spec 7: session_expired covers it too). */
export const STORED_DETAIL_GONE =
  "The stored detail of this record is no longer available; execute the search again.";

/** 410 session_expired: a search unused for too long, or a stored record detail no longer available. */
export function sessionExpired(
  message = "This search was unused for too long and has expired; execute it again.",
): ApiError {
  return new ApiError("session_expired", message, {
    hint: "Run the execute call again to get a fresh search_id.",
  });
}

/**
 * 400 at `/action`: a record action the capability does not offer. The search service refuses these
 * (src/search/record-actions.ts) before the capability's action runs.
 */
export function unknownRecordAction(
  capabilityId: string,
  action: string,
  offered: readonly string[],
): ApiError {
  return invalidRequest([
    {
      path: "/action",
      message: `unknown record action "${action}" for ${capabilityId}${didYouMean(action, offered)}; offered: ${offered.join(", ") || "none"}`,
    },
  ]);
}

/** Shorthand for a 400 with violations. */
export function invalidRequest(violations: Violation[], message = "The request is not valid."): ApiError {
  return new ApiError("invalid_request", message, { violations, hint: FIX_FIELDS_HINT });
}

const FIX_FIELDS_HINT = "Fix the fields named in violations[] (JSON pointers) and send the request again.";

/**
 * Point an invalid_request's violations into `under`, for a body the caller sent inside another
 * (MCP's execute `params`, an update's `params`); paths `keep` accepts already point where the
 * caller sent them. Any other error is returned as it is.
 */
export function violationsUnder(err: unknown, under: string, keep: (path: string) => boolean = () => false): unknown {
  if (!(err instanceof ApiError) || err.code !== "invalid_request" || err.violations === undefined) return err;
  return new ApiError("invalid_request", err.message, {
    violations: err.violations.map((v) => (keep(v.path) ? v : { path: under + v.path, message: v.message })),
    ...(err.hint ? { hint: err.hint } : {}),
  });
}

/**
 * A record action's refusal of its record (it lacks what the action needs, or the source no longer
 * has it), as the action threw it: not fixed by editing the request (a malformed or doubled id is,
 * and keeps invalidRequest's hint), so the hint says another record, or a new search, is what helps.
 */
export function asRecordRefusal(error: unknown): unknown {
  // A refusal with a hint of its own (a video with no transcript) keeps it.
  if (!(error instanceof ApiError) || error.code !== "invalid_request" || error.hint !== FIX_FIELDS_HINT) return error;
  const violations = error.violations ?? [];
  if (violations.length === 0 || !violations.every((v) => v.path === "/record_id")) return error;
  return new ApiError("invalid_request", error.message, {
    violations,
    hint: "This record cannot take this action (violations[] says why): choose another record of the search, or execute a new search. Nothing was charged.",
  });
}

/** Escape one JSON pointer reference token (RFC 6901). */
export function pointerToken(token: string | number): string {
  const text = String(token);
  return text.includes("~") || text.includes("/") ? text.replace(/~/g, "~0").replace(/\//g, "~1") : text;
}

/** Build a JSON pointer from tokens. */
export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => "/" + pointerToken(t)).join("");
}
