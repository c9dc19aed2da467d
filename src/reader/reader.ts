/**
 * The reader: one page's readable content, for web.read and web.search's `read` action. Two
 * engines, chosen by `WEB_READ_ENGINE`: `local` (default: fetch-page.ts through the guarded agent,
 * extraction in the worker pool) and `jina` (Jina Reader through the provider client, `JINA_API_KEY`).
 *
 * Failures, as the caller sees them (nothing is charged for any of them):
 * - a URL or address the reader will not connect to, and a type it does not read: `400
 *   invalid_request` with a violation at the field that named the URL, saying why; nothing fetched
 *   is ever shown;
 * - a site that fails (HTTP error status, too many redirects, a name that does not resolve, a
 *   connection that fails): `502 provider_error`; too slow (`READ_BUDGET_MS`): `504 provider_timeout`.
 * The local engine uses no circuit breaker: a broken site fails its own reads only.
 */
import type { Agent } from "undici";
import { ApiError, invalidRequest } from "../errors.ts";
import type { CapabilityContext } from "../capabilities/types.ts";
import { type AddressPolicy, addressPolicy, checkUrl, TargetRefused } from "./address.ts";
import { cutChars } from "./chars.ts";
import { guardedAgent, NameNotResolved, type Resolver, systemResolver } from "./connector.ts";
import type { ReadFormat } from "./extract.ts";
import { fetchPage, PageFailed, UnsupportedType } from "./fetch-page.ts";
import { jinaPage, jinaRequest } from "./jina.ts";
import { runExtraction } from "./pool.ts";

/** The reader's whole budget for one page (connect, redirects, body, extraction), inside the 15 s deadline. */
export const READ_BUDGET_MS = 12_000;
/** Default `WEB_READ_MAX_BYTES`: the largest response read (HTML and text are read to it; a PDF over it is refused). */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export type ReadEngine = "local" | "jina";

export interface ReaderSettings {
  engine: ReadEngine;
  policy: AddressPolicy;
  maxBytes: number;
  /** The guarded agent of these settings (made on first use). */
  agent(): Agent;
}

/** What a test may change: the resolver (a stub mapping names to private addresses). */
export interface ReaderOptions {
  resolver?: Resolver;
}

/** The reader's settings from the environment (see docs/providers.md, "The reader"). */
export function readerSettings(env: Readonly<Record<string, string | undefined>>, options: ReaderOptions = {}): ReaderSettings {
  const engine = (env.WEB_READ_ENGINE ?? "").trim() || "local";
  if (engine !== "local" && engine !== "jina") throw new Error(`WEB_READ_ENGINE must be local or jina, got "${engine}"`);
  const policy = addressPolicy({ allowCidrs: env.WEB_READ_ALLOW_CIDRS, ports: env.WEB_READ_PORTS });
  const rawMax = env.WEB_READ_MAX_BYTES?.trim();
  const maxBytes = rawMax ? Number(rawMax) : DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1024) throw new Error(`WEB_READ_MAX_BYTES must be an integer >= 1024, got "${rawMax}"`);
  let agent: Agent | undefined;
  return {
    engine,
    policy,
    maxBytes,
    agent: () => {
      agent ??= guardedAgent({ policy, resolver: options.resolver ?? systemResolver });
      return agent;
    },
  };
}

export interface ReadAsk {
  url: string;
  format: ReadFormat;
  maxChars: number;
  /** The JSON pointer of the field that named the URL (`/url`, or `/record_id` for a record's page). */
  pointer: string;
}

export interface PageRead {
  /** The page's address after redirects. */
  url: string;
  title?: string;
  content: string;
  /** Characters (code points) of the whole extracted content; `content` holds at most `maxChars`. */
  chars: number;
  truncated: boolean;
  format: ReadFormat;
  notes: string[];
}

/** Read one page with the configured engine. */
export async function readPage(ctx: CapabilityContext<ReaderSettings>, ask: ReadAsk): Promise<PageRead> {
  const settings = ctx.settings;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(READ_BUDGET_MS)]);
  try {
    return settings.engine === "jina" ? await readWithJina(ctx, ask, signal) : await readLocally(ctx, ask, signal);
  } catch (err) {
    throw asApiError(err, ask, signal);
  }
}

async function readLocally(ctx: CapabilityContext<ReaderSettings>, ask: ReadAsk, signal: AbortSignal): Promise<PageRead> {
  const s = ctx.settings;
  const page = await fetchPage(ask.url, {
    agent: s.agent(),
    policy: s.policy,
    userAgent: ctx.config.upstream.userAgent,
    maxBytes: s.maxBytes,
    signal,
    ...(ctx.pageRoute === undefined ? {} : { route: ctx.pageRoute }),
  });
  ctx.progress?.(`page fetched (${page.bytes.byteLength} bytes from ${new URL(page.url).host})`);
  const out = await runExtraction(
    { kind: page.kind, bytes: page.bytes, ...(page.charset === undefined ? {} : { charset: page.charset }), url: page.url, format: ask.format, maxChars: ask.maxChars },
    signal,
  );
  ctx.progress?.("content extracted");
  const notes: string[] = [];
  notes.push(...(page.routeNotes ?? []));
  if (page.cut) notes.push(`The page is larger than the ${s.maxBytes} bytes the reader reads; its first ${s.maxBytes} bytes were read.`);
  if (out.wholePage) notes.push("No main article was found on the page; the text of the whole page is given.");
  if (out.pages !== undefined) notes.push(`A PDF of ${out.pages} page${out.pages === 1 ? "" : "s"}, read as text.`);
  return {
    url: page.url,
    ...(out.title === undefined ? {} : { title: out.title }),
    content: out.content,
    chars: out.chars,
    truncated: out.truncated || page.cut,
    format: ask.format,
    notes,
  };
}

async function readWithJina(ctx: CapabilityContext<ReaderSettings>, ask: ReadAsk, signal: AbortSignal): Promise<PageRead> {
  if (!ctx.config.setVariables.has("JINA_API_KEY")) {
    throw new ApiError("capability_unavailable", "JINA_API_KEY is not set in this deployment (WEB_READ_ENGINE is jina).", {
      hint: "The operator chose Jina Reader for reading pages but gave it no key.",
    });
  }
  // Jina fetches from its own network, but the URL is held to the same rules (scheme, credentials,
  // port, literal addresses). Names are not resolved here: what a name reaches is decided where Jina
  // resolves it, so a self-hosted Jina inside the operator's network needs its own egress filtering
  // (docs/providers.md, "The reader").
  const url = checkUrl(ask.url, ctx.settings.policy);
  const response = await ctx.upstream.send(jinaRequest(url, ask.format), signal);
  const page = jinaPage(response.body);
  const { content, chars, truncated } = cutChars(page.content, ask.maxChars);
  return {
    url: page.url ?? url.href,
    ...(page.title === undefined ? {} : { title: page.title }),
    content,
    chars,
    truncated,
    format: ask.format,
    notes: ["Read by Jina Reader."],
  };
}

function asApiError(err: unknown, ask: ReadAsk, signal: AbortSignal): unknown {
  if (err instanceof ApiError) return err;
  const refusal = err instanceof TargetRefused ? err : (err as { cause?: unknown } | null)?.cause instanceof TargetRefused ? ((err as { cause: TargetRefused }).cause) : undefined;
  if (refusal !== undefined) {
    return invalidRequest([{ path: ask.pointer, message: refusal.message }], `The reader will not fetch this URL: ${refusal.message}.`);
  }
  if (err instanceof UnsupportedType) return invalidRequest([{ path: ask.pointer, message: err.message }], `The page cannot be read: ${err.message}.`);
  if (signal.aborted) {
    return new ApiError("provider_timeout", `The page did not finish loading and reading within ${READ_BUDGET_MS / 1000} s.`, {
      hint: "The site was too slow; nothing was charged. Retry later.",
    });
  }
  if (err instanceof NameNotResolved) return new ApiError("provider_error", `The page could not be fetched: ${err.message}.`, { hint: "Check the address; nothing was charged." });
  if (err instanceof PageFailed) {
    const permanent = err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429;
    return new ApiError("provider_error", `The page could not be read: ${err.message}.`, {
      hint: permanent ? "The site refused or does not have this page; retrying will not help. Nothing was charged." : "The site failed; nothing was charged. Retry shortly.",
    });
  }
  const code = (err as { code?: unknown } | null)?.code;
  return new ApiError("provider_error", `The page could not be fetched${typeof code === "string" ? ` (${code})` : ""}.`, {
    hint: "The site could not be reached or broke off; nothing was charged. Retry shortly.",
    cause: err,
  });
}
