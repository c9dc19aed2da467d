/**
 * Sharpen's operator settings, parsed once from the environment: the declared reviewers (family,
 * wire format, model, endpoint, key variable, tiers), credits per tier, deadlines, candidate order
 * and prompt version. A reviewer whose key variable is unset is declared but not eligible.
 * docs/sharpen.md documents every variable and the default families → vendors.
 */
import { readFileSync } from "node:fs";
import { type Static, Type } from "@sinclair/typebox";
import { ConfigError, type SharpenTier } from "../config.ts";
import { isObject, validate } from "../validation.ts";
import { DEFAULT_TIER_CREDITS, TIERS } from "./entitlement.ts";
import { FAMILIES } from "./schema.ts";

export { FAMILIES };
export type Family = (typeof FAMILIES)[number];

/** Wire formats: OpenAI-compatible chat completions, Anthropic Messages, Gemini generateContent. */
export const REVIEWER_KINDS = ["openai", "anthropic", "gemini"] as const;
export type ReviewerKind = (typeof REVIEWER_KINDS)[number];

/** Output budget per model call unless the reviewer says otherwise (Gemini 2.5 counts thinking in it). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

export const ReviewerSchema = Type.Object(
  {
    family: Type.Union(FAMILIES.map((f) => Type.Literal(f))),
    kind: Type.Union(REVIEWER_KINDS.map((k) => Type.Literal(k))),
    model: Type.String({ minLength: 1 }),
    /** openai: up to and including `/v1`; anthropic and gemini: the host only. */
    baseUrl: Type.String({ pattern: "^https?://" }),
    keyVar: Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }),
    tiers: Type.Array(Type.Union(TIERS.map((t) => Type.Literal(t))), { minItems: 1, uniqueItems: true }),
    maxOutputTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536 })),
  },
  { additionalProperties: false },
);
export type ReviewerDeclaration = Static<typeof ReviewerSchema>;

/** An eligible reviewer: declared and its key variable set. The key never leaves the wire mappers. */
export interface Reviewer extends ReviewerDeclaration {
  apiKey: string;
  maxOutputTokens: number;
}

const ALL_TIERS: SharpenTier[] = [...TIERS];

/**
 * The default declaration: one reviewer per family, every tier. Which vendor each family id stands
 * for is this deployment's choice; callers learn it from docs/sharpen.md.
 */
export const DEFAULT_REVIEWERS: ReviewerDeclaration[] = [
  // family_a = OpenAI (chat completions)
  {
    family: "family_a",
    kind: "openai",
    model: "gpt-4.1",
    baseUrl: "https://api.openai.com/v1",
    keyVar: "SHARPEN_OPENAI_API_KEY",
    tiers: ALL_TIERS,
  },
  // family_b = Anthropic Claude (Messages API)
  {
    family: "family_b",
    kind: "anthropic",
    model: "claude-sonnet-4-20250514",
    baseUrl: "https://api.anthropic.com",
    keyVar: "SHARPEN_ANTHROPIC_API_KEY",
    tiers: ALL_TIERS,
  },
  // family_c = Google Gemini (generateContent)
  {
    family: "family_c",
    kind: "gemini",
    model: "gemini-2.5-pro",
    baseUrl: "https://generativelanguage.googleapis.com",
    keyVar: "SHARPEN_GEMINI_API_KEY",
    tiers: ALL_TIERS,
  },
  // family_d = xAI Grok (OpenAI-compatible)
  {
    family: "family_d",
    kind: "openai",
    model: "grok-3",
    baseUrl: "https://api.x.ai/v1",
    keyVar: "SHARPEN_XAI_API_KEY",
    tiers: ALL_TIERS,
  },
  // family_e = Mistral (OpenAI-compatible)
  {
    family: "family_e",
    kind: "openai",
    model: "mistral-large-latest",
    baseUrl: "https://api.mistral.ai/v1",
    keyVar: "SHARPEN_MISTRAL_API_KEY",
    tiers: ALL_TIERS,
  },
  // family_f = DeepSeek (OpenAI-compatible)
  {
    family: "family_f",
    kind: "openai",
    model: "deepseek-chat",
    baseUrl: "https://api.deepseek.com/v1",
    keyVar: "SHARPEN_DEEPSEEK_API_KEY",
    tiers: ALL_TIERS,
  },
  // family_g = Meta Llama, served through OpenRouter (OpenAI-compatible)
  {
    family: "family_g",
    kind: "openai",
    model: "meta-llama/llama-3.3-70b-instruct",
    baseUrl: "https://openrouter.ai/api/v1",
    keyVar: "SHARPEN_OPENROUTER_API_KEY",
    tiers: ALL_TIERS,
  },
];

export type CandidateOrder = "rotate" | "priority";

export interface SharpenSettings {
  declared: ReviewerDeclaration[];
  /** Declared reviewers whose key is set, in declaration order. */
  reviewers: Reviewer[];
  tierCredits: Record<SharpenTier, number>;
  /** Whole review (all reviewers, both calls each). */
  deadlineMs: number;
  /** One reviewer's blind attempt plus critique; a slow reviewer leaves time for a fallback. */
  reviewerDeadlineMs: number;
  order: CandidateOrder;
  promptVersion: string;
}

type Env = Readonly<Record<string, string | undefined>>;

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

function declarations(env: Env): ReviewerDeclaration[] {
  const file = env.SHARPEN_REVIEWERS_FILE;
  let text = env.SHARPEN_REVIEWERS;
  if (file) {
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new ConfigError(`SHARPEN_REVIEWERS_FILE (${file}) cannot be read: ${(err as Error).message}`);
    }
  }
  if (!text) return DEFAULT_REVIEWERS;
  const what = file ? `SHARPEN_REVIEWERS_FILE (${file})` : "SHARPEN_REVIEWERS";
  const parsed = parseJson(text, what);
  if (!Array.isArray(parsed)) throw new ConfigError(`${what} must be a JSON array of reviewers`);
  return parsed.map((item: unknown, i) => {
    const problems = validate(ReviewerSchema, item);
    if (problems.length > 0) {
      throw new ConfigError(
        `${what}[${i}]: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`,
      );
    }
    return item as ReviewerDeclaration;
  });
}

function tierCredits(env: Env): Record<SharpenTier, number> {
  const raw = env.SHARPEN_TIER_CREDITS;
  if (!raw) return { ...DEFAULT_TIER_CREDITS };
  const parsed = parseJson(raw, "SHARPEN_TIER_CREDITS");
  if (!isObject(parsed))
    throw new ConfigError("SHARPEN_TIER_CREDITS must be a JSON object of tier → credits");
  const out = { ...DEFAULT_TIER_CREDITS };
  for (const [tier, value] of Object.entries(parsed)) {
    if (!(TIERS as string[]).includes(tier))
      throw new ConfigError(`SHARPEN_TIER_CREDITS: unknown tier "${tier}"`);
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      throw new ConfigError(`SHARPEN_TIER_CREDITS.${tier} must be an integer >= 0`);
    }
    out[tier as SharpenTier] = value;
  }
  return out;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be an integer >= 1, got "${raw}"`);
  return n;
}

export function loadSharpenSettings(env: Env): SharpenSettings {
  const declared = declarations(env);
  const reviewers: Reviewer[] = [];
  for (const d of declared) {
    const apiKey = env[d.keyVar];
    if (apiKey)
      reviewers.push({ ...d, apiKey, maxOutputTokens: d.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS });
  }
  const order = env.SHARPEN_ORDER || "rotate";
  if (order !== "rotate" && order !== "priority")
    throw new ConfigError(`SHARPEN_ORDER must be rotate or priority, got "${order}"`);
  const deadlineMs = positiveInt(env, "SHARPEN_DEADLINE_MS", 60_000);
  return {
    declared,
    reviewers,
    tierCredits: tierCredits(env),
    deadlineMs,
    reviewerDeadlineMs: Math.min(deadlineMs, positiveInt(env, "SHARPEN_REVIEWER_DEADLINE_MS", 40_000)),
    order,
    promptVersion: env.SHARPEN_PROMPT_VERSION || "v1",
  };
}
