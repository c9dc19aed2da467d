/**
 * legal.read `historical`: a work of the documented list (historical-works.ts) read from its public
 * page, split by its headings (or between paragraphs when it has none). A page that cannot be
 * fetched is `provider_error` (the client's mapping), never replaced by other text; a page that
 * answers 404 has moved: also `provider_error`, since the `work_id` itself is valid.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { identifierOf } from "../shared/legal.ts";
import type { CapabilityContext } from "../types.ts";
import { fetchDocument } from "./fetch.ts";
import type { HistoricalWork } from "./historical-works.ts";
import { splitHtml } from "./split-pool.ts";
import { type ReadDocument, sha256Hex } from "./sections.ts";

export function workRequest(work: HistoricalWork): UpstreamRequest {
  return { provider: work.provider, method: "GET", path: work.path, acceptStatus: [404] };
}

export async function readHistorical(ctx: CapabilityContext<unknown>, work: HistoricalWork): Promise<ReadDocument> {
  const fetched = await fetchDocument(ctx, workRequest(work));
  if (fetched.status === 404) {
    throw new ApiError("provider_error", `${work.publisher} no longer serves ${work.sourceUrl} (404).`, {
      retryable: false,
      hint: "The source refused the work's documented page (it has moved); nothing was charged. Changing the request will not help: report it to the operator.",
    });
  }
  const parsed = await splitHtml(fetched.text, work.title, work.root === undefined ? {} : { root: work.root }, ctx.signal);
  return {
    title: work.title,
    identifier: identifierOf.historical(work.id),
    source: "historical",
    sourceClass: work.sourceClass,
    language: work.language,
    sourceUrl: work.sourceUrl,
    sha256: sha256Hex(fetched.bytes),
    extractionMethod: parsed.split === "paragraphs" ? "html_paragraphs" : "html_structure",
    sections: parsed.sections,
    notes: [`${work.title} (${work.date}), as published by ${work.publisher}.`],
    links: [{ label: work.publisher, url: work.sourceUrl }],
  };
}
