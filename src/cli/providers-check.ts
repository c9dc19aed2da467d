/**
 * `quarry providers check` (`npm run providers:check`): the operator's live check. For every provider
 * whose keys are configured, it sends the provider's probe (one cheap real request declared beside
 * its adapter: src/capabilities/probes.ts) through the one upstream client, so the answer is checked
 * against the same declared response the adapter reads, and prints one line per provider: ok, drift
 * at a pointer, key refused, rate-limited, challenged, unreachable, timed out or refused, with its
 * latency. `--json` prints the same as one JSON document for monitoring. Exit code: 1 when any
 * provider drifted (its answers no longer have the shape Quarry reads); with `--strict`, 1 when any
 * configured provider failed in any way. Never run by tests or CI against real providers: its tests
 * point it at the replay upstream.
 */
import type { Config } from "../config.ts";
import { faultOf, type FaultKind, UpstreamError } from "../upstream/faults.ts";
import type { ProviderProbe } from "../upstream/probe.ts";
import { providerDef, requiredKeyOf, type ProviderId } from "../providers.ts";
import type { UpstreamClient } from "../upstream/types.ts";

/** What one provider's probe found. `skipped`: a key it needs is not set in this deployment. */
export type ProbeStatus = "ok" | FaultKind | "error" | "skipped";

export interface ProbeResult {
  provider: string;
  title: string;
  status: ProbeStatus;
  /** What the probe asked. */
  what: string;
  /** Milliseconds from sending to the answer or the failure; absent when skipped. */
  latency_ms?: number;
  /** Drift: the JSON pointer of the first field that did not fit. */
  pointer?: string;
  /** Why it failed, or which variable is missing. */
  message?: string;
}

export interface CheckOptions {
  /** Only these providers (ids); all by default. */
  only?: readonly string[];
  /** How long one probe may take. */
  timeoutMs?: number;
}

/** Probes at once: enough to finish in seconds, few enough not to look like a burst to any one provider. */
const CONCURRENCY = 6;

async function probe(client: UpstreamClient, p: ProviderProbe, timeoutMs: number): Promise<ProbeResult> {
  const title = providerDef(p.provider)?.title ?? p.provider;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    await client.send(p.request, AbortSignal.timeout(timeoutMs));
    return { provider: p.provider, title, status: "ok", what: p.what, latency_ms: latency() };
  } catch (err) {
    const kind = faultOf(err);
    const message = err instanceof Error ? err.message : String(err);
    return {
      provider: p.provider,
      title,
      status: kind ?? "error",
      what: p.what,
      latency_ms: latency(),
      ...(err instanceof UpstreamError && err.pointer !== undefined ? { pointer: err.pointer } : {}),
      message,
    };
  }
}

/** Each provider's probe result, in the table's order; probes of unconfigured providers are skipped, not sent. */
export async function checkProviders(
  config: Pick<Config, "setVariables">,
  probes: Readonly<Partial<Record<ProviderId, ProviderProbe>>>,
  client: UpstreamClient,
  options: CheckOptions = {},
): Promise<ProbeResult[]> {
  const chosen = (Object.entries(probes) as [ProviderId, ProviderProbe | undefined][]).filter(
    ([id, p]) => p !== undefined && (options.only === undefined || options.only.includes(id)),
  ) as [ProviderId, ProviderProbe][];
  const results: ProbeResult[] = new Array(chosen.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < chosen.length; i = next++) {
      const [id, p] = chosen[i]!;
      const missing = requiredKeyOf(id);
      results[i] =
        missing !== undefined && !config.setVariables.has(missing)
          ? { provider: id, title: providerDef(id)?.title ?? id, status: "skipped", what: p.what, message: `${missing} is not set` }
          : await probe(client, p, options.timeoutMs ?? 20_000);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, chosen.length) }, worker));
  return results;
}

const LABEL: Record<ProbeStatus, string> = {
  ok: "ok",
  drift: "drift",
  challenged: "challenged",
  key_refused: "key refused",
  rate_limited: "rate-limited",
  refused: "refused",
  unreachable: "unreachable",
  timeout: "timed out",
  error: "error",
  skipped: "not configured",
};

/** One line per provider: status, id, latency, and what it asked or why it failed. */
export function formatResults(results: readonly ProbeResult[]): string {
  const width = Math.max(...results.map((r) => r.provider.length), 8);
  return results
    .map((r) => {
      const latency = r.latency_ms === undefined ? "" : `${r.latency_ms} ms`;
      const detail = r.status === "ok" ? r.what : r.status === "drift" ? `at ${r.pointer === "" ? "(the body)" : r.pointer}: ${r.message ?? ""}` : (r.message ?? "");
      return `${LABEL[r.status].padEnd(14)} ${r.provider.padEnd(width)} ${latency.padStart(8)}  ${detail}`.trimEnd();
    })
    .join("\n");
}

/** The exit code: 1 when a provider drifted, or, with `strict`, when any probe sent failed. */
export function exitCodeOf(results: readonly ProbeResult[], strict: boolean): number {
  if (results.some((r) => r.status === "drift")) return 1;
  if (strict && results.some((r) => r.status !== "ok" && r.status !== "skipped")) return 1;
  return 0;
}
