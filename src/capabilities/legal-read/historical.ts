/**
 * legal.read `historical`: a work of the documented list (historical-works.ts) read from its public
 * page, split by its headings (or between paragraphs when it has none). A page that cannot be
 * fetched is `provider_error` (the client's mapping), never replaced by other text; a page that
 * answers 404 has moved: also `provider_error`, since the `work_id` itself is valid. A page without
 * the element its text is read from (the work's `root`), or without any text of a document, is the
 * source's answer drifting (document-check.ts): never the site's chrome or a notice read as the work.
 */
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { RequestBase } from "../../upstream/types.ts";
import { identifierOf } from "../shared/legal.ts";
import type { CapabilityContext } from "../types.ts";
import { checkHtmlDocument } from "./document-check.ts";
import { documentRequest, fetchDocument } from "./fetch.ts";
import { type HistoricalWork, historicalWork } from "./historical-works.ts";
import { type ReadDocument, sha256Hex } from "./sections.ts";
import { splitHtml } from "./split-pool.ts";

export function workRequest(work: HistoricalWork): RequestBase {
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
  checkHtmlDocument(work.provider, parsed, work.title, work.root);
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

/** A work's page as a probe: the request legal.read sends for it, declared as an HTML document. */
function workProbe(provider: HistoricalWork["provider"], workId: string): ProviderProbe {
  const work = historicalWork(workId);
  if (work === undefined || work.provider !== provider) throw new Error(`legal.read: no historical work ${workId} of ${provider}`);
  return { provider, what: `the page of ${work.title}`, request: documentRequest(workRequest(work)) };
}

/** The live checks of the historical works' sources: one documented page each. */
export const avalonProbe = workProbe("avalon", "magna_carta_1215");
export const unProbe = workProbe("un", "universal_declaration_of_human_rights");
export const gesetzeProbe = workProbe("gesetze", "basic_law_germany");
