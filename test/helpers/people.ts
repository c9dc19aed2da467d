/**
 * A person at the dashboard over plain HTTP: a cookie jar around fetch, the CSRF token of the page
 * last read, form posts, sign-in. The browser suite drives Chromium instead; these drive the same
 * routes where a browser is not needed (so they run everywhere).
 */
import assert from "node:assert/strict";
import type { Harness } from "./harness.ts";

export const PASSWORD = "correct horse battery staple";

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class Visitor {
  /** name → value of every cookie set so far. */
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read that had a form. */
  csrf = "";
  /** The consent form's request id on the last consent page read (POST /dashboard/authorize sends it back). */
  consentRequest = "";
  /** The create-key form's one-use token on the last keys page read (sent with a key form post). */
  keyForm = "";

  constructor(readonly base: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private keep(res: Response): void {
    for (const set of res.headers.getSetCookie()) {
      const [pair, ...attributes] = set.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Page> {
    const url = path.startsWith("http") ? path : this.base + path;
    const res = await fetch(url, {
      method,
      redirect: "manual",
      headers: { ...(this.cookies.size > 0 ? { cookie: this.cookieHeader } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    this.keep(res);
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    const consent = /name="request" value="([^"]+)"/.exec(text);
    if (consent) this.consentRequest = consent[1]!;
    const once = /name="once" value="([^"]+)"/.exec(text);
    if (once) this.keyForm = once[1]!;
    return { status: res.status, headers: res.headers, text, location: res.headers.get("location") };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.request("GET", path, { headers });
  }

  /** A form post; the CSRF token of the last page read is added unless `_csrf` is given. */
  post(path: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams({ _csrf: this.csrf, ...(path === "/dashboard/keys" && this.keyForm !== "" ? { once: this.keyForm } : {}), ...fields }).toString();
    return this.request("POST", path, { body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } });
  }

  async signIn(email: string, password = PASSWORD): Promise<Page> {
    await this.get("/dashboard/sign-in");
    return this.post("/dashboard/sign-in", { email, password });
  }
}

/** An account with one key and a login for a person; returns a visitor signed in as them. */
export async function person(h: Harness, planId?: string): Promise<{ key: string; accountId: string; email: string; visitor: Visitor }> {
  const { key, accountId } = await h.account(planId);
  const email = `${accountId.toLowerCase()}@example.com`;
  await h.services.logins.create(accountId, email, PASSWORD);
  const visitor = new Visitor(h.url);
  const res = await visitor.signIn(email);
  assert.equal(res.status, 303, `sign-in: ${res.text.slice(0, 300)}`);
  return { key, accountId, email, visitor };
}
