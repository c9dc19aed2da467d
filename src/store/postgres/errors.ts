/**
 * The PostgreSQL store's error mapping: which errors mean "the database cannot serve this now"
 * (connection faults, timeouts, shutdown, a standby, too many connections...), answered 503
 * service_unavailable, and which stay as they are (500). The pool's `guard` applies it to every call.
 */
import pg from "pg";
import { ApiError } from "../../errors.ts";

/** Node socket errors: the server is down or the network between us is. */
const NET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/**
 * SQLSTATEs that mean "the database cannot serve this now", not "this call is wrong":
 * 57P01-57P03 shutdown / cannot connect now, 57014 statement timeout, 55P03 lock timeout,
 * 40001/40P01 serialization failure / deadlock, 25006 read-only (standby).
 */
const PG_CODES = new Set(["57P01", "57P02", "57P03", "57014", "55P03", "40001", "40P01", "25006"]);

/** pg raises these as plain Errors without a code. */
const PG_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection error|Connection refused/i;

export function isUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    // Classes 08 (connection exception) and 53 (insufficient resources: too many connections, disk full).
    if (NET_CODES.has(code) || PG_CODES.has(code) || code.startsWith("08") || code.startsWith("53")) {
      return true;
    }
  }
  if (PG_MESSAGES.test(error.message)) return true;
  // Node's happy-eyeballs connect may reject with an AggregateError of per-address failures.
  if (error instanceof AggregateError) return error.errors.some((e) => isUnavailable(e, depth + 1));
  return error.cause !== undefined && isUnavailable(error.cause, depth + 1);
}

/** Map connection-level faults to 503 service_unavailable; anything else stays as it is (500). */
export function mapPgError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (isUnavailable(error)) {
    return new ApiError("service_unavailable", "The database is not reachable right now.", { cause: error });
  }
  return error;
}

/** pg's own `query_timeout`: the statement got no reply in time (the connection may be dead). */
export function isClientTimeout(error: unknown): boolean {
  return error instanceof Error && !(error instanceof pg.DatabaseError) && error.message === "Query read timeout";
}
