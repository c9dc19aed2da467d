/**
 * Steps of a call for a caller that follows it (an MCP progressToken): the upstream client as one
 * call sees it, telling `step` each time a provider answered ("OpenAlex answered"). Failures are
 * not steps: they end the call and are answered as errors.
 */
import { providerDef } from "../providers.ts";
import type { UpstreamClient, UpstreamRequest } from "./types.ts";

/** A provider's name for a step: the table's title, or an operator-declared endpoint's own name (a Sharpen reviewer). */
function nameOf(provider: string): string {
  const reviewer = /^sharpen:([^/]+)\/(.+)$/.exec(provider);
  if (reviewer !== null) return `the ${reviewer[1]} reviewer (${reviewer[2]})`;
  return providerDef(provider)?.title ?? provider;
}

export function reportingSteps(client: UpstreamClient, step: (text: string) => void): UpstreamClient {
  return {
    send: (async (request: UpstreamRequest, signal: AbortSignal, clientGone?: () => boolean) => {
      const res = await client.send(request, signal, clientGone);
      step(`${nameOf(request.provider)} answered`);
      return res;
    }) as UpstreamClient["send"],
    hasKey: (provider) => client.hasKey(provider),
    close: () => client.close(),
  };
}
