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
import type { Store } from "../store/types.ts";

export function sessionIdHash(sessionId: string): string {
  return hash("sha256", sessionId, "hex");
}

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, result?: Session | null) => void;

export class StoreSessionStore implements SessionStore {
  constructor(
    private readonly store: Store,
    /** Lifetime of a session without a cookie expiry (never, with the dashboard's settings). */
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  set(sessionId: string, session: Session, callback: Callback): void {
    // JSON of the session: its data and its cookie's settings (expires, maxAge), as the plugin reads back.
    const data = JSON.parse(JSON.stringify(session)) as JsonObject;
    const expires = session.cookie?.expires;
    const expiresAt = expires instanceof Date ? expires.getTime() : this.now() + this.ttlMs;
    const own = session as unknown as { accountId?: unknown; loginId?: unknown };
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
