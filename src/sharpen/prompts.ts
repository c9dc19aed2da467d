/**
 * Sharpen's prompts, read once per version from src/sharpen/prompts/<version>/*.md (text lives in
 * versioned files so a wording change is a reviewed diff and a new version, never an inline edit).
 * A file is an optional header comment, then sections that start with a `<!-- name -->` line.
 * Rendering substitutes `{{name}}` in one pass, so a value holding `{{draft}}` is never expanded.
 */
import { existsSync, readFileSync } from "node:fs";
import { ConfigError } from "../config.ts";

/** What the blind attempt may see: deliberately no draft field. */
export interface BlindInput {
  task: string;
  context?: string | undefined;
  approach?: string | undefined;
}

export interface CritiqueInput extends BlindInput {
  draft: string;
}

interface Template {
  system: string;
  user: string;
}

export interface PromptSet {
  version: string;
  blind: Template;
  critique: Template;
  instruction: { one: string; two: string };
}

const BLIND_FIELDS = new Set(["task", "context", "approach"]);
const CRITIQUE_FIELDS = new Set(["task", "context", "approach", "attempt", "draft"]);
const PLACEHOLDER = /\{\{(\w+)\}\}/g;
const NONE = "(none given)";

function sections(text: string, file: string, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = text.split(/^<!-- ([a-z-]+) -->[ \t]*$/m);
  // parts = [header, name1, body1, name2, body2, …]
  for (let i = 1; i + 1 < parts.length; i += 2) out[parts[i]!] = parts[i + 1]!.trim();
  for (const name of names) {
    if (!out[name]) throw new ConfigError(`Sharpen prompt ${file} has no "<!-- ${name} -->" section`);
  }
  return out;
}

function template(dir: URL, name: string, allowed: Set<string>): Template {
  const file = new URL(name, dir);
  const s = sections(readFileSync(file, "utf8"), file.pathname, ["system", "user"]);
  for (const part of [s.system!, s.user!]) {
    for (const [, field] of part.matchAll(PLACEHOLDER)) {
      if (!allowed.has(field!))
        throw new ConfigError(`Sharpen prompt ${file.pathname} uses {{${field}}}, not allowed there`);
    }
  }
  return { system: s.system!, user: s.user! };
}

const cache = new Map<string, PromptSet>();

export function loadPrompts(version: string): PromptSet {
  const cached = cache.get(version);
  if (cached) return cached;
  if (!/^v\d+$/.test(version))
    throw new ConfigError(`SHARPEN_PROMPT_VERSION must look like v1, got "${version}"`);
  const dir = new URL(`./prompts/${version}/`, import.meta.url);
  if (!existsSync(dir)) throw new ConfigError(`Sharpen prompts ${version} do not exist (${dir.pathname})`);
  const instruction = sections(readFileSync(new URL("instruction.md", dir), "utf8"), "instruction.md", [
    "one",
    "two",
  ]);
  const set: PromptSet = {
    version,
    blind: template(dir, "blind-attempt.md", BLIND_FIELDS),
    critique: template(dir, "critique.md", CRITIQUE_FIELDS),
    instruction: { one: instruction.one!, two: instruction.two! },
  };
  cache.set(version, set);
  return set;
}

function render(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, field: string) => values[field] ?? whole);
}

function fields(input: BlindInput): Record<string, string> {
  return {
    task: input.task,
    context: input.context?.trim() ? input.context : NONE,
    approach: input.approach?.trim() ? input.approach : NONE,
  };
}

/** Step 1: the blind attempt. Takes a BlindInput, so the draft cannot reach it. */
export function blindPrompt(prompts: PromptSet, input: BlindInput): Template {
  const values = fields({ task: input.task, context: input.context, approach: input.approach });
  return { system: render(prompts.blind.system, values), user: render(prompts.blind.user, values) };
}

/** Step 2: the critique of the draft against the reviewer's own attempt. */
export function critiquePrompt(prompts: PromptSet, input: CritiqueInput, attempt: string): Template {
  const values = { ...fields(input), attempt, draft: input.draft };
  return { system: render(prompts.critique.system, values), user: render(prompts.critique.user, values) };
}
