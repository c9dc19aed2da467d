/**
 * The embedded store's error mapping: the SQLite result codes that mean "the file cannot be used
 * now" (busy, locked, read-only, an I/O error, a full disk, a file it cannot open) are answered 503
 * service_unavailable; anything else stays as it is (500). SQLITE_BUSY is also what the reads and
 * the writer wait out (until the busy timeout) before answering.
 */
import { ApiError } from "../../errors.ts";

/** Primary result codes that mean "the file cannot be written now", not "the call is wrong". */
const UNAVAILABLE_CODES = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_READONLY",
  "SQLITE_IOERR",
  "SQLITE_FULL",
  "SQLITE_CANTOPEN",
];

/** Map faults of the file itself to 503 service_unavailable; anything else stays as it is (500). */
export function mapSqliteError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  // Extended codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT, ...) share the primary prefix.
  if (typeof code === "string" && UNAVAILABLE_CODES.some((c) => code === c || code.startsWith(c + "_"))) {
    return new ApiError("service_unavailable", "The embedded database is not writable right now.", {
      cause: error,
    });
  }
  return error;
}

export function isBusyCode(code: unknown): boolean {
  return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"));
}

export function isBusy(error: unknown): boolean {
  return isBusyCode((error as { code?: unknown } | null)?.code);
}
