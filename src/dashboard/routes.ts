/**
 * Accounts for people over HTTP: the dashboard at /dashboard and the OAuth authorization endpoint
 * (GET /oauth/authorize), whose consent is given in the dashboard, with the routes app.ts adds that
 * also read a session (GET /v1/account: src/http/v1-routes.ts). They share one encapsulated scope
 * holding the session machinery, all of it maintained Fastify plugins: @fastify/cookie,
 * @fastify/session (its store is Quarry's Store: session-store.ts), @fastify/csrf-protection (on every
 * state-changing dashboard request), @fastify/formbody, and @fastify/helmet for the pages' security
 * headers. No other route runs these hooks.
 *
 * Sessions: HttpOnly, SameSite=Lax (an MCP host's redirect to /oauth/authorize is a top-level
 * navigation from another site and must carry it), Secure when served over TLS (PUBLIC_URL https,
 * or a TLS request), a new id at sign-in (no fixation), DASHBOARD_SESSION_TTL_SECONDS after the last
 * use and at most SESSION_MAX_AGE_MS after sign-in. docs/dashboard.md has the rest.
 */
import fastifyCookie from "@fastify/cookie";
import fastifyCsrf from "@fastify/csrf-protection";
import fastifyFormbody from "@fastify/formbody";
import fastifyHelmet from "@fastify/helmet";
import fastifySession from "@fastify/session";
import { hash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { keyUse, MAX_KEY_LIMIT, parseKeyLimit, periodStart } from "../accounts/accounts.ts";
import { STAGES, allowedStages } from "../sharpen/entitlement.ts";
import type { SharpenStage } from "../config.ts";
import { ApiError } from "../errors.ts";
import { publicBase } from "../http/auth.ts";
import { countRegistration } from "../http/oauth-routes.ts";
import { randomBase62 } from "../ids.ts";
import { OAuthError, type PendingAuthorization } from "../people/oauth.ts";
import type { Services } from "../services.ts";
import type { AccountRow, LoginRow } from "../store/types.ts";
import { type ChartDay, usageChart } from "./chart.ts";
import {
  consentPage,
  keyCreatedPage,
  keysPage,
  type LayoutOptions,
  messagePage,
  overviewPage,
  signInPage,
  usagePage,
} from "./pages.ts";
import { StoreSessionStore } from "./session-store.ts";

declare module "fastify" {
  interface Session {
    loginId?: string;
    accountId?: string;
    /** Epoch ms of the sign-in (the absolute limit counts from it). */
    signedInAt?: number;
    /** An MCP host's authorization request waiting for consent (src/people/oauth.ts). */
    oauth?: PendingAuthorization;
    /** One-use tokens of the create-key forms this session was shown (newest last, at most KEY_FORMS_KEPT). */
    keyForms?: string[];
    _csrf?: string;
  }
}

export const SESSION_COOKIE = "quarry_session";
/** How many create-key forms (open tabs) of one session can each still create a key. */
const KEY_FORMS_KEPT = 10;
/** A session ends this long after sign-in, however active (beside the idle limit). */
export const SESSION_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** A client address may try this many times the per-email sign-in limit (several people behind one NAT). */
const PER_ADDRESS_FACTOR = 5;
const KEY_NAME_MAX = 100;
const LIMIT_HELP = `A key's limit is a whole number of credits per billing period, from 0 to ${MAX_KEY_LIMIT.toLocaleString("en-US")}; leave it empty (or write none) for no limit.`;
/**
 * Sessions one client address may start without signing in (each cookie-less sign-in page or OAuth
 * request writes one) per SIGN_IN_WINDOW_MS: a person needs a few, an office behind one address a few
 * hundred; a script asking for more is refused, so it cannot fill the store (each lasts 30 minutes).
 */
export const NEW_SESSIONS_PER_ADDRESS = 300;

/** Messages a redirect may ask a page to show (by name: nothing sent is echoed). */
const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  stage: "Saved the Sharpen stage.",
  revoked: "The key is revoked: calls with it are refused from now on.",
  limit: "Saved the key's limit: it applies to its next call.",
  disconnected: "The app is disconnected: its tokens no longer work.",
  connected: "The app is connected.",
};

interface Person {
  login: LoginRow;
  account: AccountRow;
}

const ASSET_DIR = new URL("./assets/", import.meta.url);
const ASSETS: Record<string, { type: string; body: Buffer }> = {
  "dashboard.css": { type: "text/css; charset=utf-8", body: readFileSync(new URL("dashboard.css", ASSET_DIR)) },
  "dashboard.js": { type: "text/javascript; charset=utf-8", body: readFileSync(new URL("dashboard.js", ASSET_DIR)) },
  "favicon.svg": { type: "image/svg+xml", body: readFileSync(new URL("favicon.svg", ASSET_DIR)) },
};

/** One value of a form field; undefined when absent or sent more than once. */
function field(body: unknown, name: string): string | undefined {
  if (body === null || typeof body !== "object" || !Object.hasOwn(body, name)) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** Where to go after sign-in: a dashboard path only (never another site, never a protocol-relative URL). */
function safeNext(next: string | undefined): string {
  if (next === undefined || !/^\/dashboard(?:[/?][\x21-\x7e]*)?$/.test(next) || next.startsWith("//")) return "/dashboard";
  return next;
}

function notice(request: FastifyRequest): string | undefined {
  const name = (request.query as Record<string, unknown> | undefined)?.notice;
  return typeof name === "string" ? NOTICES[name] : undefined;
}

/**
 * Whether this request may start a session nobody has signed in to: one it already has (a CSRF
 * secret or a waiting OAuth request in it) always may; a new one counts against its address.
 */
async function roomForSession(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const session = request.session;
  if (session.accountId !== undefined || session._csrf !== undefined || session.oauth !== undefined) return true;
  const hit = await services.limiter.hit(await services.limitName(`new-session-ip:${request.ip}`), NEW_SESSIONS_PER_ADDRESS, SIGN_IN_WINDOW_MS);
  if (!hit.allowed) reply.header("retry-after", String(Math.max(1, Math.ceil(hit.resetMs / 1000))));
  return hit.allowed;
}

/** An HTML page as the answer. */
function sendPage(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).type("text/html; charset=utf-8").send(body);
}

/** The answer to a request refused by roomForSession. */
function tooManySessions(reply: FastifyReply) {
  return sendPage(
    reply,
    messagePage({ title: "Too many visits", message: "This address has started too many sessions without signing in. Try again in a few minutes." }),
    429,
  );
}

/**
 * The generated session secret, kept in the store so restarts and other instances sign alike. A store
 * that cannot keep it now (read-only, or down at start) gets one for this process only, said in the log:
 * sessions then end with the process.
 */
async function sessionSecret(app: FastifyInstance, services: Services): Promise<string> {
  try {
    return await services.store.setting("dashboard_session_secret", randomBase62(64));
  } catch (error) {
    app.log.warn({ err: (error as Error).message }, "could not keep the dashboard's session secret in the store; sessions last until this process stops");
    return randomBase62(64);
  }
}

/**
 * Routes registered in the session scope besides the dashboard's own: `signedIn` is the account id of
 * the request's signed-in person, or null (an ended, deleted or foreign session is ended).
 */
export type SessionRoutes = (scope: FastifyInstance, signedIn: (request: FastifyRequest) => Promise<string | null>) => void;

export async function registerPeopleRoutes(app: FastifyInstance, services: Services, sessionRoutes: SessionRoutes): Promise<void> {
  const { config, store } = services;
  const secret = config.dashboard.sessionSecret ?? (await sessionSecret(app, services));
  const ttlMs = config.dashboard.sessionTtlSeconds * 1000;
  const httpsOnly = config.publicUrl?.startsWith("https:") === true;

  /** The signed-in person of this request, or null (an ended, deleted or foreign session is ended). */
  async function currentPerson(request: FastifyRequest): Promise<Person | null> {
    const session = request.session;
    if (!session?.loginId || !session.accountId) return null;
    const expired = session.signedInAt === undefined || session.signedInAt + SESSION_MAX_AGE_MS <= Date.now();
    const login = expired ? null : await store.getLogin(session.loginId);
    const account = login && login.accountId === session.accountId ? await store.getAccount(login.accountId) : null;
    if (!login || !account) {
      await session.destroy();
      return null;
    }
    return { login, account };
  }

  app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifySession, {
      secret,
      cookieName: SESSION_COOKIE,
      store: new StoreSessionStore(store, ttlMs),
      saveUninitialized: false,
      rolling: true,
      cookie: { path: "/", httpOnly: true, sameSite: "lax", secure: httpsOnly ? true : "auto", maxAge: ttlMs },
    });
    await scope.register(fastifyCsrf, { sessionPlugin: "@fastify/session", logLevel: "info" });
    await scope.register(fastifyFormbody, { bodyLimit: 64 * 1024 });

    sessionRoutes(scope, async (request) => (await currentPerson(request))?.account.id ?? null);

    scope.register(async (pages) => dashboardPages(pages, services, currentPerson, httpsOnly), { prefix: "/dashboard" });
    scope.register(async (authorize) => authorizeEndpoint(authorize, services, httpsOnly));
  });
}

/** Security headers of every page: a strict CSP (nothing but this origin's own files), no framing. */
async function pageHeaders(scope: FastifyInstance, httpsOnly: boolean): Promise<void> {
  await scope.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    strictTransportSecurity: httpsOnly ? { maxAge: 31536000 } : false,
    referrerPolicy: { policy: "no-referrer" },
  });
  // Pages hold account data and forms with CSRF tokens: never stored by a cache.
  scope.addHook("onSend", (_request, reply, payload, done) => {
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    done(null, payload);
  });
  scope.setErrorHandler((error, request, reply) => errorPage(error, request, reply));
}

/** Errors of a page: an HTML page (a person is reading), never a stack or the request's data. */
/** The sign-in page reached over plain http while PUBLIC_URL is https: said to the operator, not left to fail. */
function notOverHttps(reply: FastifyReply, services: Services, from: string) {
  const publicUrl = services.config.publicUrl ?? "";
  return sendPage(
    reply,
    messagePage({
      title: "Open the dashboard over https",
      message:
        `This Quarry is set up to be reached at ${publicUrl} (PUBLIC_URL), but this request came over plain http ` +
        `(from ${from}), so the browser would not keep the sign-in cookie. Open ${publicUrl}/dashboard. If you did, ` +
        "the proxy or TLS terminator in front of Quarry is not one it trusts: its operator sets TRUST_PROXY to that proxy's address.",
      link: { href: `${publicUrl}/dashboard/sign-in`, label: "Sign in over https" },
    }),
    400,
  );
}

function errorPage(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const code = (error as { code?: string } | null)?.code;
  let status = 500;
  let title = "Something went wrong";
  let message = "Quarry could not complete this request. Try again in a moment.";
  if (code === "FST_CSRF_MISSING_SECRET" || code === "FST_CSRF_INVALID_TOKEN") {
    status = 403;
    title = "This form has expired";
    message = "The form was older than your session, or did not come from this dashboard. Go back, reload the page and try again.";
  } else if (error instanceof ApiError) {
    status = error.status;
    title =
      status === 404
        ? "Not found"
        : status === 429
          ? "Too many attempts"
          : status === 401
            ? "Sign-in needed"
            : status === 403
              ? "Not allowed"
              : status === 400
                ? "That choice cannot be made"
                : title;
    message = error.message;
    if (error.headers) reply.headers(error.headers);
    if (error.retryAfter !== undefined) reply.header("retry-after", String(error.retryAfter));
  } else if (typeof (error as { statusCode?: unknown })?.statusCode === "number" && (error as { statusCode: number }).statusCode < 500) {
    status = 400;
    title = "That request was not understood";
    message = "Reload the page and try again.";
  }
  if (status >= 500) request.log.error({ err: error }, "dashboard page failed");
  reply.header("x-request-id", String(request.id));
  return sendPage(reply, messagePage({ title, message, link: { href: "/dashboard", label: "Back to the dashboard" } }), status);
}

function dashboardPages(
  pages: FastifyInstance,
  services: Services,
  currentPerson: (request: FastifyRequest) => Promise<Person | null>,
  httpsOnly: boolean,
): Promise<void> {
  const { config, store, accounts } = services;
  return (async () => {
    await pageHeaders(pages, httpsOnly);
    pages.setNotFoundHandler((request, reply) =>
      errorPage(new ApiError("not_found", "There is no such page in the dashboard."), request, reply),
    );

    const common = (request: FastifyRequest, reply: FastifyReply, person: Person): Omit<LayoutOptions, "title" | "body"> => ({
      person: { email: person.login.email, accountName: person.account.name, accountId: person.account.id },
      csrf: reply.generateCsrf(),
      ...(notice(request) ? { notice: notice(request)! } : {}),
    });
    const toSignIn = (request: FastifyRequest, reply: FastifyReply) =>
      reply.redirect(`/dashboard/sign-in?next=${encodeURIComponent(request.url.split("#")[0]!)}`, 303);

    /** A page for signed-in people; others are sent to sign in and brought back. */
    const page = (render: (request: FastifyRequest, reply: FastifyReply, person: Person) => Promise<unknown>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const person = await currentPerson(request);
        if (!person) return toSignIn(request, reply);
        return render(request, reply, person);
      };
    /** A state-changing form post: CSRF checked first (preHandler), then the person. */
    const action = (run: (request: FastifyRequest, reply: FastifyReply, person: Person) => Promise<unknown>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const person = await currentPerson(request);
        if (!person) return reply.redirect("/dashboard/sign-in", 303);
        return run(request, reply, person);
      };
    const csrf = { preHandler: pages.csrfProtection };

    pages.get<{ Params: { file: string } }>("/assets/:file", async (request, reply) => {
      const asset = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
      if (!asset) throw new ApiError("not_found", "No such file.");
      return reply.header("cache-control", "public, max-age=3600").type(asset.type).send(asset.body);
    });

    pages.get("/sign-in", async (request, reply) => {
      // An https PUBLIC_URL makes the session cookie Secure; a request that did not come over https
      // (nor through a proxy TRUST_PROXY believes) would get none, and every sign-in would "expire".
      if (httpsOnly && request.protocol !== "https") return notOverHttps(reply, services, request.ip);
      if (await currentPerson(request)) return reply.redirect("/dashboard", 303);
      if (!(await roomForSession(services, request, reply))) return tooManySessions(reply);
      const next = (request.query as Record<string, unknown>).next;
      const noticeText = notice(request);
      return sendPage(
        reply,
        signInPage({
          csrf: reply.generateCsrf(),
          ...(typeof next === "string" && safeNext(next) === next ? { next } : {}),
          ...(noticeText ? { notice: noticeText } : {}),
        }),
      );
    });

    pages.post("/sign-in", csrf, async (request, reply) => {
      const email = field(request.body, "email") ?? "";
      const password = field(request.body, "password") ?? "";
      const nextField = field(request.body, "next");
      const again = (error: string, status: number) =>
        sendPage(
          reply,
          signInPage({
            csrf: reply.generateCsrf(),
            email: email.slice(0, 254),
            ...(nextField !== undefined && safeNext(nextField) === nextField ? { next: nextField } : {}),
            error,
          }),
          status,
        );
      if (email.trim() === "" || password === "") return again("Enter your email and password.", 400);
      // Counted before the password is checked: guessing costs attempts whatever the answer.
      // The address first: an address already refused adds no counter for the emails it makes up
      // (the limiter's memory stays bounded by what allowed addresses try); emails are kept hashed.
      const perEmail = config.dashboard.signInPer15Minutes;
      const byAddress = await services.limiter.hit(
        await services.limitName(`signin-ip:${request.ip}`),
        perEmail * PER_ADDRESS_FACTOR,
        SIGN_IN_WINDOW_MS,
      );
      const byEmail = byAddress.allowed
        ? await services.limiter.hit(await services.limitName(`signin:${hash("sha256", email.trim().toLowerCase().slice(0, 254), "hex")}`), perEmail, SIGN_IN_WINDOW_MS)
        : byAddress;
      if (!byEmail.allowed || !byAddress.allowed) {
        const wait = Math.max(1, Math.ceil(Math.max(byEmail.allowed ? 0 : byEmail.resetMs, byAddress.allowed ? 0 : byAddress.resetMs) / 1000));
        reply.header("retry-after", String(wait));
        return again(`Too many sign-in attempts. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? "s" : ""}.`, 429);
      }
      const login = await services.logins.verify(email, password);
      if (!login) return again("That email and password do not match a login.", 400);
      // A new session id at sign-in (session fixation); a pending OAuth request is carried over.
      await request.session.regenerate(["oauth"]);
      request.session.loginId = login.id;
      request.session.accountId = login.accountId;
      request.session.signedInAt = Date.now();
      return reply.redirect(safeNext(nextField), 303);
    });

    pages.post("/sign-out", csrf, async (request, reply) => {
      await request.session.destroy();
      reply.clearCookie(SESSION_COOKIE, { path: "/" });
      return reply.redirect("/dashboard/sign-in?notice=signed-out", 303);
    });

    pages.get(
      "/",
      page(async (request, reply, person) => {
        const caller = await accounts.sessionCaller(person.account.id);
        const view = await services.account(caller);
        const current = await accounts.refresh(caller);
        const plan = current.plan;
        const keys = await store.listKeys(person.account.id);
        const grants = await services.oauth.grants(person.account.id);
        return sendPage(
          reply,
          overviewPage(
            {
              account: current.account,
              planName: plan.name,
              used: view.credits.used,
              cap: view.credits.cap,
              periodEnd: current.account.periodEnd,
              sharpenTier: view.sharpen_tier,
              sharpenStage: view.sharpen_stage,
              savedStage: current.account.sharpenStage,
              planDefaultStage: plan.sharpenDefaultStage,
              allowedStages: allowedStages(plan.sharpenTier),
              enabledCount: view.enabled_capabilities.length,
              keysActive: keys.filter((k) => k.revokedAt === null).length,
              appsConnected: grants.length,
            },
            common(request, reply, person),
          ),
        );
      }),
    );

    pages.post(
      "/sharpen-stage",
      csrf,
      action(async (_request, reply, person) => {
        const stage = field(_request.body, "stage");
        const plan = accounts.plan(person.account.planId);
        const allowed = ["default", "stock", ...allowedStages(plan.sharpenTier).map((s) => s.stage)];
        if (stage === undefined || !allowed.includes(stage) || !(stage === "default" || STAGES.includes(stage as SharpenStage))) {
          throw new ApiError("invalid_request", `Choose one of: ${allowed.join(", ")}.`);
        }
        await accounts.update(person.account.id, { sharpenStage: stage === "default" ? null : stage });
        return reply.redirect("/dashboard?notice=stage", 303);
      }),
    );

    const renderKeys = async (request: FastifyRequest, reply: FastifyReply, person: Person, error?: string, status = 200) => {
      // The period rolled first, so a key's use shown is this period's.
      const account = await accounts.ensureCurrentPeriod(person.account);
      const keys = await store.listKeys(person.account.id);
      const used = new Map(keys.map((k) => [k.id, keyUse(k, account)]));
      const grants = await services.oauth.grants(person.account.id);
      // A reload or Back re-posts the create-key form: each form carries a token that creates one key.
      const formToken = randomBase62(16);
      request.session.keyForms = [...(request.session.keyForms ?? []), formToken].slice(-KEY_FORMS_KEPT);
      return sendPage(
        reply,
        keysPage({ keys, keyUse: used, grants, base: publicBase(config, request), formToken }, { ...common(request, reply, person), ...(error ? { error } : {}) }),
        status,
      );
    };

    pages.get("/keys", page((request, reply, person) => renderKeys(request, reply, person)));

    pages.post(
      "/keys",
      csrf,
      action(async (request, reply, person) => {
        const name = (field(request.body, "name") ?? "").trim();
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
        if (name === "" || [...name].length > KEY_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
          return renderKeys(request, reply, person, `Give the key a name of 1 to ${KEY_NAME_MAX} characters, on one line.`, 400);
        }
        // Optional: empty (or absent) is no limit.
        const limit = parseKeyLimit(field(request.body, "limit") ?? "");
        if (limit === undefined) return renderKeys(request, reply, person, LIMIT_HELP, 400);
        const formToken = field(request.body, "once");
        const issued = request.session.keyForms ?? [];
        if (formToken === undefined || !issued.includes(formToken)) {
          return renderKeys(
            request,
            reply,
            person,
            "This form was sent again (a reload or Back), so no second key was made. The key it made is listed below; its value was shown once. Create another key if you need one.",
            409,
          );
        }
        request.session.keyForms = issued.filter((t) => t !== formToken);
        const { key, row } = await accounts.createKey(person.account.id, name, limit);
        // The plaintext is in this answer only: never stored, never logged, never in a redirect.
        return sendPage(reply, keyCreatedPage({ key, row, base: publicBase(config, request) }, common(request, reply, person)));
      }),
    );

    pages.post<{ Params: { id: string } }>(
      "/keys/:id/revoke",
      csrf,
      action(async (request, reply, person) => {
        const { id } = request.params as { id: string };
        const owned = (await store.listKeys(person.account.id)).some((k) => k.id === id);
        if (!owned) throw new ApiError("not_found", "Your account has no such key.");
        await store.revokeKey(id, Date.now());
        return reply.redirect("/dashboard/keys?notice=revoked", 303);
      }),
    );

    pages.post<{ Params: { id: string } }>(
      "/keys/:id/limit",
      csrf,
      action(async (request, reply, person) => {
        const { id } = request.params as { id: string };
        // Only the account's own keys (another account's key is "no such key", as for a revocation).
        const owned = (await store.listKeys(person.account.id)).some((k) => k.id === id);
        if (!owned) throw new ApiError("not_found", "Your account has no such key.");
        const text = field(request.body, "limit");
        const limit = text === undefined ? undefined : parseKeyLimit(text);
        if (limit === undefined) return renderKeys(request, reply, person, LIMIT_HELP, 400);
        await accounts.setKeyLimit(id, limit, person.account.id);
        return reply.redirect("/dashboard/keys?notice=limit", 303);
      }),
    );

    pages.post<{ Params: { id: string } }>(
      "/apps/:id/revoke",
      csrf,
      action(async (request, reply, person) => {
        const { id } = request.params as { id: string };
        if (!(await services.oauth.revokeGrant(person.account.id, id))) throw new ApiError("not_found", "Your account has no such connected app.");
        return reply.redirect("/dashboard/keys?notice=disconnected", 303);
      }),
    );

    pages.get(
      "/usage",
      page(async (request, reply, person) => {
        const account = await accounts.ensureCurrentPeriod(person.account);
        const since = periodStart(account);
        const daily = await store.usageByDay(account.id, since);
        const recent = await store.recentCalls(account.id, 25);
        const keyNames = new Map((await store.listKeys(account.id)).map((k) => [k.id, `key “${k.name}” (${k.hint}…)`]));
        const appNames = new Map((await store.listOAuthGrants(account.id)).map((g) => [g.id, `app “${g.clientName}”`]));
        const byCapability = new Map<string, { capability: string; calls: number; credits: number }>();
        const byDay = new Map<number, { day: number; calls: number; credits: number }>();
        for (const r of daily) {
          const c = byCapability.get(r.capability) ?? { capability: r.capability, calls: 0, credits: 0 };
          c.calls += r.calls;
          c.credits += r.credits;
          byCapability.set(r.capability, c);
          const d = byDay.get(r.day) ?? { day: r.day, calls: 0, credits: 0 };
          d.calls += r.calls;
          d.credits += r.credits;
          byDay.set(r.day, d);
        }
        // The chart: the period's days, at most the last 60, today included.
        const DAY = 86_400_000;
        const today = Math.floor(Date.now() / DAY) * DAY;
        const first = Math.max(Math.floor(since / DAY) * DAY, today - 59 * DAY);
        const credits = daily.filter((r) => r.day >= first).reduce((n, r) => n + r.credits, 0);
        const unit = credits > 0 ? "credits" : "calls";
        const days: ChartDay[] = [];
        for (let day = first; day <= today; day += DAY) days.push({ day, values: new Map() });
        for (const r of daily) {
          const slot = days.find((d) => d.day === r.day);
          if (slot) slot.values.set(r.capability, (slot.values.get(r.capability) ?? 0) + (unit === "credits" ? r.credits : r.calls));
        }
        const total = days.reduce((n, d) => n + [...d.values.values()].reduce((a, b) => a + b, 0), 0);
        const chart = usageChart(days, unit, `${unit === "credits" ? "Credits" : "Calls"} per day over the last ${days.length} days: ${total} in all.`);
        return sendPage(
          reply,
          usagePage(
            {
              since,
              periodEnd: account.periodEnd,
              chart,
              chartUnit: unit,
              byCapability: [...byCapability.values()].sort((a, b) => b.credits - a.credits || b.calls - a.calls),
              byDay: [...byDay.values()].sort((a, b) => b.day - a.day),
              recent: recent.map((r) => ({ ...r, via: (r.keyId && (keyNames.get(r.keyId) ?? appNames.get(r.keyId))) || "—" })),
            },
            common(request, reply, { ...person, account }),
          ),
        );
      }),
    );

    // OAuth consent (the request was checked and kept by GET /oauth/authorize).
    const pending = (request: FastifyRequest): PendingAuthorization | null => {
      const waiting = request.session.oauth;
      return waiting && typeof waiting.id === "string" && waiting.expiresAt > Date.now() ? waiting : null;
    };
    const nothingWaiting = (reply: FastifyReply, person: Person, request: FastifyRequest) =>
      sendPage(
        reply,
        messagePage({
          title: "No app is waiting",
          message: "There is no connection request to answer (it may have expired). Start again from the app.",
          link: { href: "/dashboard", label: "Back to the dashboard" },
          ...common(request, reply, person),
        }),
        400,
      );

    pages.get(
      "/authorize",
      page(async (request, reply, person) => {
        const waiting = pending(request);
        if (!waiting) return nothingWaiting(reply, person, request);
        const target = new URL(waiting.redirectUri);
        // Chrome applies form-action to the redirect that follows the post: allow the app's address.
        const destination = target.protocol === "http:" || target.protocol === "https:" ? target.origin : target.protocol;
        reply.header(
          "content-security-policy",
          `default-src 'none';script-src 'self';style-src 'self';img-src 'self';connect-src 'self';form-action 'self' ${destination};frame-ancestors 'none';base-uri 'none'`,
        );
        return sendPage(
          reply,
          consentPage(
            {
              requestId: waiting.id,
              clientName: waiting.clientName,
              ...(typeof waiting.clientHost === "string" ? { clientHost: waiting.clientHost } : {}),
              redirectHost: target.protocol === "http:" || target.protocol === "https:" ? target.host : target.protocol,
              accountName: person.account.name,
              email: person.login.email,
            },
            common(request, reply, person),
          ),
        );
      }),
    );

    pages.post(
      "/authorize",
      csrf,
      action(async (request, reply, person) => {
        const waiting = pending(request);
        if (!waiting) return nothingWaiting(reply, person, request);
        // The answer is for the request the page showed: another one started since (in another tab,
        // or by a page that opened /oauth/authorize behind this one) is shown afresh, not approved.
        if (field(request.body, "request") !== waiting.id) return reply.redirect("/dashboard/authorize", 303);
        const decision = field(request.body, "decision");
        if (decision !== "approve" && decision !== "deny") throw new ApiError("invalid_request", "Choose Connect or Cancel.");
        request.session.oauth = undefined;
        const base = publicBase(config, request);
        const target =
          decision === "approve" ? await services.oauth.approve(waiting, person.account.id, base) : services.oauth.deny(waiting, base);
        return reply.redirect(target, 303);
      }),
    );
  })();
}

/**
 * GET /oauth/authorize (RFC 6749 §4.1.1, with PKCE): the request is checked as the MCP SDK's handler
 * checks it, in two steps. An unknown client or a redirect URI it did not register is answered here
 * (a page), never by redirect; any other problem goes back to the app's redirect URI. A valid request
 * is kept in the person's session and the consent page asks them (signing in first if needed).
 */
async function authorizeEndpoint(scope: FastifyInstance, services: Services, httpsOnly: boolean): Promise<void> {
  await pageHeaders(scope, httpsOnly);
  scope.get("/oauth/authorize", async (request, reply) => {
    const params = (request.query ?? {}) as Record<string, unknown>;
    const base = publicBase(services.config, request);
    let client: Awaited<ReturnType<typeof services.oauth.checkClient>>;
    try {
      client = await services.oauth.checkClient(params, () => countRegistration(services, request, reply));
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return sendPage(reply, messagePage({ title: "This connection request is not valid", message: `${error.message} (${error.errorCode})` }), 400);
    }
    let checked: PendingAuthorization;
    try {
      checked = services.oauth.checkRequest(params, client, base);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      const state = typeof params.state === "string" ? params.state : undefined;
      return reply.redirect(services.oauth.errorRedirect(client.redirectUri, error, state, base), 302);
    }
    // Kept in the session: a new one (no sign-in yet) counts against the address, as the sign-in page's.
    if (!(await roomForSession(services, request, reply))) return tooManySessions(reply);
    request.session.oauth = checked;
    return reply.redirect("/dashboard/authorize", 303);
  });
}
