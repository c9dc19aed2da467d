/**
 * The environment, parsed once into a typed Config. Nothing else in the service reads process.env.
 */
import { isIP } from "node:net";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PROVIDERS, type ProviderDef } from "./providers.ts";

export type SharpenTier = "sharpen" | "plus" | "ultra" | "ultra2x";
export type SharpenStage = "stock" | "stage1" | "stage2" | "stage3" | "stage3+";
/** Sharpen's tiers and stages in order (sharpen/entitlement.ts says what a plan allows of them). */
export const TIERS: SharpenTier[] = ["sharpen", "plus", "ultra", "ultra2x"];
export const STAGES: SharpenStage[] = ["stock", "stage1", "stage2", "stage3", "stage3+"];
/** The tier each stage stands for. */
export const STAGE_TIER: Record<Exclude<SharpenStage, "stock">, SharpenTier> = {
  stage1: "sharpen",
  stage2: "plus",
  stage3: "ultra",
  "stage3+": "ultra2x",
};
/** STAGE_TIER in words, for schema descriptions: "stage1 = tier sharpen, stage2 = tier plus, …". */
export const STAGE_TIERS_TEXT = Object.entries(STAGE_TIER)
  .map(([stage, tier]) => `${stage} = tier ${tier}`)
  .join(", ");

/** A plan: credits, rate limit, which capabilities it switches on, Sharpen entitlement. */
export interface Plan {
  id: string;
  name: string;
  /** Credits per period (`once`: granted once; `monthly`: reset on the subscription anniversary). */
  credits: number;
  period: "once" | "monthly";
  rateLimitPerMinute: number;
  /** Capability ids switched on, or "*" for all; `sharpen` may be listed to switch Sharpen on. */
  capabilities: "*" | string[];
  /** Highest Sharpen tier the plan allows. */
  sharpenTier: SharpenTier;
  /** Stage used when the account has saved none. */
  sharpenDefaultStage: SharpenStage;
}

export interface ProviderConfig {
  /** Base URL by host name (`default` always present), without trailing slash. */
  hosts: Record<string, string>;
  apiKey: string | undefined;
  /** The provider's OAuth client (ProviderDef.clientCredentials), when both of its variables are set. */
  client?: { id: string; secret: string };
  /** The pacing interval the operator set (the provider's `intervalVar`), replacing the table's (providers.ts, pacingIntervalOf). */
  minIntervalMs?: number;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  /** Sessions expire this long after their last use. */
  sessionTtlSeconds: number;
  /** Expired sessions stay answerable with 410 this long before the sweeper deletes them. */
  sessionSweepGraceSeconds: number;
  sweepIntervalSeconds: number;
  sweepBatchSize: number;
  /** How long a key lookup is cached (0 = every call reads the key); see src/store/key-cache.ts. */
  keyCacheTtlMs: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  plans: Plan[];
  defaultPlanId: string;
  providers: Record<string, ProviderConfig>;
  /** Every provider-related variable that is set (names only matter for availability). */
  setVariables: Set<string>;
  upstream: {
    userAgent: string;
    maxResponseBytes: number;
    /** Longest URL sent to a provider; a longer one is refused before sending (servers reset or 414 on them). */
    maxUrlBytes: number;
    maxRetries: number;
    /** Consecutive failed calls that open a provider's circuit breaker. */
    breakerThreshold: number;
    /** How long an open breaker refuses calls before letting one trial through. */
    breakerHalfOpenMs: number;
  };
  /** Quarry's cache of provider answers (src/upstream/answer-cache.ts). */
  answerCache: {
    /** ANSWER_CACHE (on, the default, or off): identical provider requests within a capability's time to live answered from it, free. */
    enabled: boolean;
    /** Entries and megabytes it holds in each process (LRU). */
    maxEntries: number;
    maxBytes: number;
  };
  mcp: {
    /** Origins allowed to call /mcp from a browser besides the server's own; a request without Origin is always allowed. */
    allowedOrigins: string[];
    /**
     * Host names (with an optional port) `/mcp` answers to besides the listening address's own
     * (DNS-rebinding protection); empty on a wildcard address means any.
     */
    allowedHosts: string[];
    /** MCP protocol messages (no tools/call) allowed per key per minute, beside the key's call limit. */
    protocolPerMinute: number;
    /** Longest MCP tool result (characters of its JSON); longer ones have their longest text fields cut (src/mcp/fit.ts). */
    maxResultChars: number;
  };
  /**
   * The address people and MCP hosts reach this deployment at (`https://quarry.example.com`), from
   * PUBLIC_URL: the OAuth issuer and resource, and the URLs the dashboard shows. Unset: taken from
   * each request's Host (fine on one machine; set it behind a proxy or TLS terminator).
   */
  publicUrl: string | undefined;
  /**
   * TRUST_PROXY: whose `X-Forwarded-For` / `-Proto` / `-Host` to believe (Fastify's `trustProxy`):
   * false, true (any), a hop count, or addresses, CIDR ranges and proxy-addr's names (`loopback`,
   * `linklocal`, `uniquelocal`). Unset: `loopback` when PUBLIC_URL is https (a TLS terminator on this
   * host, which the dashboard's Secure cookie needs to see as https), else false.
   */
  trustProxy: boolean | number | string[];
  dashboard: {
    /** Signs dashboard session cookies (DASHBOARD_SESSION_SECRET); unset: generated once and kept in the store. */
    sessionSecret: string | undefined;
    /** A dashboard session ends this long after its last use. */
    sessionTtlSeconds: number;
    /** Sign-in attempts per email per 15 minutes (five times as many per client address). */
    signInPer15Minutes: number;
  };
  oauth: {
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    /** Dynamic client registrations per client address per hour. */
    registrationsPerHour: number;
  };
  /** Running the offline demo against recorded data. */
  demo: boolean;
  /** Grace period on SIGTERM for in-flight requests. */
  shutdownGraceMs: number;
  /**
   * Longest a client may take to send one whole request (headers and body). Past it the request is
   * refused and its connection closed: a body trickled byte by byte does not hold a connection for ever.
   */
  requestTimeoutMs: number;
  /** Raw variables for modules that own their own settings (Sharpen reviewers). */
  env: Readonly<Record<string, string | undefined>>;
}

export const API_VERSION = "0.1.0";
export const CONTRACT_REVISION = "2026-09-22";

export const DEFAULT_PLANS: Plan[] = [
  {
    id: "free",
    name: "Free",
    credits: 1000,
    period: "once",
    rateLimitPerMinute: 60,
    capabilities: "*",
    sharpenTier: "sharpen",
    sharpenDefaultStage: "stage1",
  },
  {
    id: "pro",
    name: "Pro",
    credits: 20000,
    period: "monthly",
    rateLimitPerMinute: 60,
    capabilities: "*",
    sharpenTier: "ultra2x",
    sharpenDefaultStage: "stage2",
  },
];

export class ConfigError extends Error {}

function int(env: Record<string, string | undefined>, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function onOff(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw === "on") return true;
  if (raw === "off") return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** TRUST_PROXY (see Config.trustProxy). */
function trustProxy(raw: string | undefined, publicOrigin: string | undefined): boolean | number | string[] {
  const text = raw?.trim() ?? "";
  if (text === "") return publicOrigin?.startsWith("https:") ? ["loopback"] : false;
  if (text === "true" || text === "false") return text === "true";
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(",").map((e) => e.trim()).filter((e) => e !== "");
  for (const entry of entries) {
    const [address, bits, extra] = entry.split("/");
    const family = isIP(address ?? "");
    const maxBits = family === 4 ? 32 : 128;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!PROXY_NAMES.has(entry) && (family === 0 || !validBits || extra !== undefined)) {
      throw new ConfigError(`TRUST_PROXY must be true, false, a hop count, or addresses and CIDR ranges (or loopback, linklocal, uniquelocal), comma-separated; got "${entry}"`);
    }
  }
  return entries;
}

/** PUBLIC_URL: an http(s) origin, without path, query or fragment; returned without a trailing slash. */
function publicUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.hash || url.username) {
    throw new ConfigError(`PUBLIC_URL must be an http(s) origin such as https://quarry.example.com (no path, query or credentials), got "${raw}"`);
  }
  return url.origin;
}

function sessionSecret(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw.length < 32) throw new ConfigError("DASHBOARD_SESSION_SECRET must be at least 32 characters long");
  return raw;
}

function loadPlans(env: Record<string, string | undefined>): Plan[] {
  const file = env.QUARRY_PLANS_FILE;
  const inline = env.QUARRY_PLANS;
  const text = file ? readFileSync(file, "utf8") : inline;
  if (!text) return DEFAULT_PLANS;
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || parsed.length === 0) throw new ConfigError("plans must be a non-empty JSON array");
  const plans = parsed.map((p: Partial<Plan>, i) => {
    if (!p || typeof p.id !== "string" || p.id === "" || typeof p.credits !== "number") {
      throw new ConfigError(`plan ${i} needs at least id and credits`);
    }
    const plan: Plan = {
      id: p.id,
      name: p.name ?? p.id,
      credits: p.credits,
      period: p.period ?? "monthly",
      rateLimitPerMinute: p.rateLimitPerMinute ?? 60,
      capabilities: p.capabilities ?? "*",
      sharpenTier: p.sharpenTier ?? "sharpen",
      sharpenDefaultStage: p.sharpenDefaultStage ?? "stage1",
    };
    checkPlan(plan);
    return plan;
  });
  const ids = plans.map((p) => p.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new ConfigError(`plan "${twice}" is defined twice`);
  return plans;
}

/**
 * A plan's values as the contract shows them (GET /v1/account, the balance): a typo in QUARRY_PLANS
 * stops the start with one line rather than answering out-of-contract values or refusing every call.
 */
function checkPlan(plan: Plan): void {
  const wrong = (what: string) => new ConfigError(`plan "${plan.id}": ${what}`);
  if (typeof plan.name !== "string" || plan.name === "") throw wrong("name must be a non-empty string");
  if (!Number.isSafeInteger(plan.credits) || plan.credits < 0) throw wrong("credits must be a whole number of credits, 0 or more");
  if (plan.period !== "once" && plan.period !== "monthly") throw wrong('period must be "once" or "monthly"');
  if (!Number.isSafeInteger(plan.rateLimitPerMinute) || plan.rateLimitPerMinute < 1) throw wrong("rateLimitPerMinute must be a whole number, 1 or more");
  const caps = plan.capabilities;
  if (caps !== "*" && !(Array.isArray(caps) && caps.every((c) => typeof c === "string"))) {
    throw wrong('capabilities must be "*" or a list of capability ids');
  }
  if (!TIERS.includes(plan.sharpenTier)) throw wrong(`sharpenTier must be one of ${TIERS.join(", ")}`);
  if (!STAGES.includes(plan.sharpenDefaultStage)) throw wrong(`sharpenDefaultStage must be one of ${STAGES.join(", ")}`);
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const providers: Record<string, ProviderConfig> = {};
  const setVariables = new Set<string>();
  for (const def of Object.values(PROVIDERS) as ProviderDef[]) {
    const hosts: Record<string, string> = {};
    for (const [name, host] of Object.entries(def.hosts)) {
      const value = env[host.baseUrlVar];
      if (value) setVariables.add(host.baseUrlVar);
      hosts[name] = trimSlash(value || host.defaultBaseUrl);
    }
    let apiKey: string | undefined;
    if (def.keyVar) {
      const value = env[def.keyVar];
      if (value) setVariables.add(def.keyVar);
      apiKey = value || def.defaultKey;
      if (apiKey && !value) setVariables.add(def.keyVar);
    }
    for (const extra of def.extraVars ?? []) if (env[extra.name]) setVariables.add(extra.name);
    let client: ProviderConfig["client"];
    if (def.clientCredentials) {
      const id = env[def.clientCredentials.idVar];
      const secret = env[def.clientCredentials.secretVar];
      if (id) setVariables.add(def.clientCredentials.idVar);
      if (secret) setVariables.add(def.clientCredentials.secretVar);
      if (id && secret) client = { id, secret };
    }
    const paced = def.intervalVar !== undefined && env[def.intervalVar] ? { minIntervalMs: int(env, def.intervalVar, 0) } : {};
    providers[def.id] = { hosts, apiKey, ...(client ? { client } : {}), ...paced };
  }
  const plans = loadPlans(env);
  const defaultPlanId = env.QUARRY_DEFAULT_PLAN ?? plans[0]!.id;
  if (!plans.some((p) => p.id === defaultPlanId)) throw new ConfigError(`QUARRY_DEFAULT_PLAN "${defaultPlanId}" is not a plan`);
  const demo = env.QUARRY_DEMO === "1";
  return {
    host: env.HOST || "127.0.0.1",
    port: int(env, "PORT", 8080),
    dataDir: resolve(env.DATA_DIR || "./data"),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL || "info",
    sessionTtlSeconds: int(env, "SESSION_TTL_SECONDS", 24 * 3600, 1),
    sessionSweepGraceSeconds: int(env, "SESSION_SWEEP_GRACE_SECONDS", 7 * 24 * 3600),
    sweepIntervalSeconds: int(env, "SWEEP_INTERVAL_SECONDS", 60, 1),
    sweepBatchSize: int(env, "SWEEP_BATCH_SIZE", 200, 1),
    keyCacheTtlMs: int(env, "KEY_CACHE_TTL_MS", 1000, 0),
    bodyLimitBytes: int(env, "BODY_LIMIT_BYTES", 1024 * 1024, 1024),
    plans,
    defaultPlanId,
    providers,
    setVariables,
    upstream: {
      userAgent:
        env.QUARRY_USER_AGENT ||
        `Quarry/${API_VERSION} (search gateway for AI agents; ${env.QUARRY_CONTACT || "operator contact not set"})`,
      maxResponseBytes: int(env, "UPSTREAM_MAX_RESPONSE_BYTES", 8 * 1024 * 1024, 1024),
      maxUrlBytes: int(env, "UPSTREAM_MAX_URL_BYTES", 32 * 1024, 1024),
      maxRetries: int(env, "UPSTREAM_MAX_RETRIES", 2),
      breakerThreshold: int(env, "UPSTREAM_BREAKER_THRESHOLD", 5, 1),
      breakerHalfOpenMs: int(env, "UPSTREAM_BREAKER_HALF_OPEN_MS", 30_000, 1),
    },
    answerCache: {
      enabled: onOff(env, "ANSWER_CACHE", true),
      maxEntries: int(env, "ANSWER_CACHE_MAX_ENTRIES", 10_000, 1),
      maxBytes: int(env, "ANSWER_CACHE_MAX_MB", 64, 1) * 1024 * 1024,
    },
    mcp: {
      allowedOrigins: list(env.MCP_ALLOWED_ORIGINS),
      allowedHosts: list(env.MCP_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
      protocolPerMinute: int(env, "MCP_PROTOCOL_RATE_PER_MINUTE", 600, 1),
      maxResultChars: int(env, "MCP_MAX_RESULT_CHARS", 80_000, 10_000),
    },
    publicUrl: publicUrl(env.PUBLIC_URL),
    trustProxy: trustProxy(env.TRUST_PROXY, publicUrl(env.PUBLIC_URL)),
    dashboard: {
      sessionSecret: sessionSecret(env.DASHBOARD_SESSION_SECRET),
      sessionTtlSeconds: int(env, "DASHBOARD_SESSION_TTL_SECONDS", 12 * 3600, 60),
      signInPer15Minutes: int(env, "DASHBOARD_SIGNIN_PER_15_MINUTES", 10, 1),
    },
    oauth: {
      accessTokenTtlSeconds: int(env, "OAUTH_ACCESS_TOKEN_TTL_SECONDS", 3600, 60),
      refreshTokenTtlSeconds: int(env, "OAUTH_REFRESH_TOKEN_TTL_SECONDS", 30 * 24 * 3600, 60),
      registrationsPerHour: int(env, "OAUTH_REGISTRATIONS_PER_HOUR", 20, 1),
    },
    demo,
    shutdownGraceMs: int(env, "SHUTDOWN_GRACE_MS", 10000),
    requestTimeoutMs: int(env, "REQUEST_TIMEOUT_MS", 30_000, 100),
    env,
  };
}

export function findPlan(config: Config, id: string): Plan | undefined {
  return config.plans.find((p) => p.id === id);
}
