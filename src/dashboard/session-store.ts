/**
 * @fastify/session's store over Quarry's own Store (table web_sessions, migration 007), so dashboard
 * sessions survive restarts and are shared by every instance on one PostgreSQL. A session is kept
 * under the SHA-256 of its id: the id is the secret the cookie carries (signed), and a copy of the
 * table gives no cookie that signs in. Expired sessions read as absent; the sweeper deletes them
 * (Store.sweepPeople).
 */
import { hash } from "node:crypto";
import type { SessionStore } from "@fastify/session";
import type { Session } from "fastify";
import type { JsonObject } from "../capabilities/types.ts";
import type { PeopleStore } from "../store/types.ts";

export function sessionIdHash(sessionId: string): string {
  return hash("sha256", sessionId, "hex");
}

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, result?: Session | null) => void;

/**
 * How long a session nobody has signed in to is kept (a sign-in form's CSRF secret, an OAuth request
 * waiting for sign-in): long enough to fill in the form, short enough that cookie-less visits, each of
 * which starts one, cannot pile rows up for the signed-in lifetime.
 */
export const ANONYMOUS_SESSION_TTL_MS = 30 * 60 * 1000;

export class StoreSessionStore implements SessionStore {
  constructor(
    private readonly store: PeopleStore,
    /** Lifetime of a session without a cookie expiry (never, with the dashboard's settings). */
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  set(sessionId: string, session: Session, callback: Callback): void {
    // JSON of the session: its data and its cookie's settings (expires, maxAge), as the plugin reads back.
    const data = JSON.parse(JSON.stringify(session)) as JsonObject;
    const expires = session.cookie?.expires;
    const own = session as unknown as { accountId?: unknown; loginId?: unknown };
    const lifetime = expires instanceof Date ? expires.getTime() : this.now() + this.ttlMs;
    // Not signed in: kept ANONYMOUS_SESSION_TTL_MS from its last use, whatever the cookie says.
    const expiresAt = typeof own.accountId === "string" ? lifetime : Math.min(lifetime, this.now() + ANONYMOUS_SESSION_TTL_MS);
    this.store
      .setWebSession({
        idHash: sessionIdHash(sessionId),
        accountId: typeof own.accountId === "string" ? own.accountId : null,
        loginId: typeof own.loginId === "string" ? own.loginId : null,
        data,
        expiresAt,
      })
      .then(() => callback(), callback);
  }

  get(sessionId: string, callback: GetCallback): void {
    this.store.getWebSession(sessionIdHash(sessionId)).then(
      (row) => callback(null, row === null || row.expiresAt <= this.now() ? null : (row.data as unknown as Session)),
      (error: unknown) => callback(error),
    );
  }

  destroy(sessionId: string, callback: Callback): void {
    this.store.deleteWebSession(sessionIdHash(sessionId)).then(() => callback(), callback);
  }
}
