/**
 * The services one Quarry process runs on, wired from its dependencies (store, limiter, upstream
 * client, clock, ids): accounts, billing, search, catalog, the account resource, Sharpen,
 * authentication, and the cache and indexes capabilities keep between calls. Routes (REST and MCP)
 * receive these; nothing here knows about HTTP, so nothing needs to import the app to use them.
 */
import type { CallWatch } from "./search/run-search.ts";
import { createHash } from "node:crypto";
import { type AccountView, makeAccountView } from "./accounts/account-view.ts";
import { AccountService } from "./accounts/accounts.ts";
import { createBoundedCache, createIndexes, type Indexes } from "./capabilities/framework/cache.ts";
import { type Registry, registry as defaultRegistry } from "./capabilities/registry.ts";
import { Availability } from "./catalog/availability.ts";
import { CatalogService } from "./catalog/catalog-service.ts";
import { type Clock, systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { Billing } from "./credits/billing.ts";
import { type Authenticate, makeAuthenticator } from "./accounts/authenticator.ts";
import { cryptoIds, type IdGenerator, randomBase62 } from "./ids.ts";
import type { RateLimiter } from "./limits/rate-limiter.ts";
import { SearchService } from "./search/search-service.ts";
import { sharpenEntitlement } from "./sharpen/entitlement.ts";
import { createSharpenHandler, type SharpenHandler } from "./sharpen/handler.ts";
import { renderGuide } from "./http/guide.ts";
import { loadSharpenSettings } from "./sharpen/reviewers.ts";
import type { Store } from "./store/types.ts";
import { LoginService } from "./people/logins.ts";
import { ClientMetadataDocuments, type ClientMetadataOptions } from "./people/client-metadata.ts";
import { OAuthService } from "./people/oauth.ts";
import { AnswerCache, type AnswerStore, DEFAULT_ANSWER_BOUNDS, MemoryAnswerStore } from "./upstream/answer-cache.ts";
import type { PageRoute, UpstreamClient } from "./upstream/types.ts";
export type { SharpenHandler } from "./sharpen/handler.ts";

export interface AppDeps {
  config: Config;
  store: Store;
  limiter: RateLimiter;
  upstream: UpstreamClient;
  clock?: Clock;
  ids?: IdGenerator;
  registry?: Registry;
  /** Build the Sharpen handler from the wired services (default: createSharpenHandler). */
  sharpen?: (services: Omit<Services, "sharpen">) => SharpenHandler;
  /** Extra probes for /health/ready (e.g. Redis). */
  readinessProbes?: Record<string, () => Promise<void>>;
  /** Pino logger options or false; defaults to the config's level. */
  logger?: boolean | Record<string, unknown>;
  /** Where Quarry's cache of provider answers is kept: memory (default), or memory and Redis (runtime.ts with REDIS_URL). */
  answerStore?: AnswerStore;
  /**
   * Tests only: how OAuth client metadata documents are fetched (an address policy allowing loopback,
   * a test CA). Production fetches from public addresses only and has no setting for it.
   */
  clientMetadataFetch?: Pick<ClientMetadataOptions, "policy" | "resolver" | "ca">;
  /** A watch over each search call's provider answers (run-search.ts); the offline demo installs one (src/demo). */
  callWatch?: () => CallWatch;
  /** Where pages read by address are fetched from (upstream/types.ts, PageRoute); tests and the offline demo install the replay's. */
  pageRoute?: PageRoute;
  /** Said wherever an agent is oriented (catalog and MCP instructions); the offline demo's says it answers from recordings. */
  notice?: string;
}

export interface Services {
  config: Config;
  store: Store;
  accounts: AccountService;
  billing: Billing;
  search: SearchService;
  catalog: CatalogService;
  /** The account resource (GET /v1/account, the MCP `account` tool, the dashboard's overview). */
  account: AccountView;
  sharpen: SharpenHandler;
  /** Said wherever an agent is oriented, when the deployment has one (AppDeps.notice). */
  notice?: string;
  authenticate: Authenticate;
  /** The rate limiter (per-key limits go through `authenticate`; the dashboard counts sign-ins with it). */
  limiter: RateLimiter;
  /**
   * Counts that are not per key (sign-ins per email and per address, OAuth registrations per
   * address) under a name of this deployment's own (kept in its store), so deployments sharing one
   * Redis do not count each other's.
   */
  limitName(name: string): Promise<string>;
  /** Dashboard sign-ins for people (src/people/logins.ts). */
  logins: LoginService;
  /** Quarry as the OAuth authorization server of MCP hosts (src/people/oauth.ts). */
  oauth: OAuthService;
  clock: Clock;
  ids: IdGenerator;
  registry: Registry;
  /** The indexes capabilities load and refresh (fitness.exercises' wger index), shared by every call of the process. */
  indexes: Indexes;
  /** Quarry's cache of provider answers (upstream/answer-cache.ts), shared by every call of the process (and, with Redis, the deployment). */
  answers: AnswerCache;
  /** The integration guide (GET /v1/guide, the MCP resource quarry://guide), rendered once. */
  guide: () => string;
}

/** A provider's configured key as the answer cache keys it: a short hash, so another key is another cache. */
function keyIdentity(config: Config): (provider: string) => string {
  const ids = new Map<string, string>();
  return (provider) => {
    let id = ids.get(provider);
    if (id === undefined) {
      const key = config.providers[provider]?.apiKey ?? "";
      id = key === "" ? "-" : createHash("sha256").update(key).digest("base64url").slice(0, 16);
      ids.set(provider, id);
    }
    return id;
  };
}

export function createServices(deps: AppDeps): Services {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? cryptoIds;
  const registry = deps.registry ?? defaultRegistry;
  // Capability settings (WEB_READ_ENGINE, …) are parsed at start, like the rest of the configuration.
  for (const cap of Object.values(registry)) cap.checkSettings(deps.config);
  const accounts = new AccountService(deps.store, deps.config, clock, ids);
  const billing = new Billing(deps.store, accounts, clock, ids);
  const indexes = createIndexes(() => clock.now());
  const answerBounds = { ...DEFAULT_ANSWER_BOUNDS, maxEntries: deps.config.answerCache.maxEntries, maxBytes: deps.config.answerCache.maxBytes };
  const answers = new AnswerCache(deps.answerStore ?? new MemoryAnswerStore(answerBounds), keyIdentity(deps.config), (name) => limitName(name), () => clock.now());
  let deployment: Promise<string> | undefined;
  const limitName = async (name: string) => {
    deployment ??= deps.store.setting("deployment_id", randomBase62(16));
    return `${await deployment}:${name}`;
  };
  const availability = new Availability({ registry, accounts, config: deps.config });
  const search = new SearchService({
    availability,
    store: deps.store,
    config: deps.config,
    accounts,
    billing,
    upstream: deps.upstream,
    ids,
    clock,
    cache: createBoundedCache(),
    indexes,
    answers,
    ...(deps.callWatch === undefined ? {} : { callWatch: deps.callWatch }),
    ...(deps.pageRoute === undefined ? {} : { pageRoute: deps.pageRoute }),
  });
  // Built once the other services exist; the catalog reads its block through this late binding.
  let sharpen: SharpenHandler | null = null;
  const catalog = new CatalogService({
    registry,
    config: deps.config,
    availability,
    sharpen: (caller) => sharpen!.block(caller),
    ...(deps.notice === undefined ? {} : { notice: deps.notice }),
  });
  const account = makeAccountView({
    accounts,
    enabledCapabilities: (caller) => availability.enabledIds(caller),
    sharpen: (caller) => sharpenEntitlement(accounts, caller),
  });
  const authenticate = makeAuthenticator(accounts, deps.limiter);
  const logins = new LoginService(deps.store, clock, ids);
  const oauth = new OAuthService(
    deps.store,
    deps.config,
    clock,
    ids,
    new ClientMetadataDocuments({ userAgent: deps.config.upstream.userAgent, ...deps.clientMetadataFetch }),
  );
  let guideText: string | undefined;
  const guide = () => (guideText ??= renderGuide(registry, loadSharpenSettings(deps.config.env), deps.config.mcp.protocolPerMinute, deps.config.plans));
  const base = {
    config: deps.config,
    store: deps.store,
    accounts,
    billing,
    search,
    catalog,
    account,
    authenticate,
    limiter: deps.limiter,
    limitName,
    logins,
    oauth,
    clock,
    ids,
    registry,
    indexes,
    answers,
    guide,
    ...(deps.notice === undefined ? {} : { notice: deps.notice }),
  };
  sharpen = deps.sharpen ? deps.sharpen(base) : createSharpenHandler(base, { upstream: deps.upstream });
  return { ...base, sharpen };
}

