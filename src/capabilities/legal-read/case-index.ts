/**
 * legal.read `case_index`: a decision from CourtListener by cluster id — the cluster
 * (`GET /api/rest/v4/clusters/{id}/`: case name, court, dates, its opinions' URLs) and each of its
 * opinions (`GET /api/rest/v4/opinions/{id}/`; a cluster of more than MAX_OPINIONS is refused), in the cluster's order. An
 * opinion's text is its `plain_text` when CourtListener has one — the same words as its
 * `html_with_citations`, which for opinions taken from PDFs is that text cut into inline `<pre>`
 * runs around citation links, so the plain text keeps the lines and paragraphs better — else the
 * first HTML rendering it has, in CourtListener's documented order from best to worst
 * (`html_with_citations`, `html_columbia`, `html_lawbox`, `xml_harvard`, `html_anon_2020`, `html`),
 * read as text; long opinions are cut between paragraphs. The cluster's syllabus,
 * when it has one, comes first. An unknown cluster (404) is the caller's `caselaw_id` (400 at
 * `/document/caselaw_id`). `source_sha256` hashes the cluster's and the opinions' bodies as received,
 * in that order; the language is not stated by the source (null).
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import { clusterRequest, idOfResource, type Opinion, opinionRequest } from "../shared/courtlistener.ts";
import { courtListenerPage, identifierOf } from "../shared/legal.ts";
import { str } from "../shared/read.ts";
import type { CapabilityContext } from "../types.ts";
import { splitHtml, splitText } from "./split-pool.ts";
import { type ReadDocument, type Section, sha256Hex } from "./sections.ts";

/**
 * The most opinions of one cluster read in a call (the largest benches write a dozen). A cluster that
 * lists more is refused, never served in part: its details say the whole document is available.
 */
export const MAX_OPINIONS = 100;

/** CourtListener's opinion types (its `Opinion.OPINION_TYPES`). */
const OPINION_TYPES: Readonly<Record<string, string>> = {
  "010combined": "Combined opinion",
  "015unamimous": "Unanimous opinion",
  "020lead": "Lead opinion",
  "025plurality": "Plurality opinion",
  "030concurrence": "Concurrence",
  "035concurrenceinpart": "Concurrence in part",
  "040dissent": "Dissent",
  "050addendum": "Addendum",
  "060remittitur": "Remittitur",
  "070rehearing": "Rehearing",
  "080onthemerits": "On the merits",
  "090onmotiontostrike": "On motion to strike cost bill",
};

/** CourtListener's HTML renderings, best first (its case-law API documentation's order). */
const HTML_FIELDS = ["html_with_citations", "html_columbia", "html_lawbox", "xml_harvard", "html_anon_2020", "html"] as const;

/** One opinion as sections, and whether its text came from `plain_text`. */
export async function opinionSections(opinion: Opinion, index: number, signal: AbortSignal): Promise<{ sections: Section[]; plain: boolean }> {
  const type = str(opinion.type);
  const author = str(opinion.author_str);
  const label = `${(type && OPINION_TYPES[type]) ?? type ?? `Opinion ${index + 1}`}${author ? ` (${author})` : ""}`;
  const plain = str(opinion.plain_text);
  if (plain !== undefined) return { sections: await splitText(plain, label, signal), plain: true };
  for (const field of HTML_FIELDS) {
    const html = str(opinion[field]);
    if (html !== undefined) return { sections: (await splitHtml(html, label, { paragraphsOnly: true }, signal)).sections, plain: false };
  }
  return { sections: [], plain: false };
}

export async function readCase(ctx: CapabilityContext<unknown>, caselawId: string): Promise<ReadDocument> {
  const clusterRes = await ctx.upstream.send(clusterRequest(caselawId), ctx.signal);
  if (clusterRes.status === 404) {
    throw invalidRequest([{ path: "/document/caselaw_id", message: `CourtListener has no opinion cluster ${caselawId} (404).` }]);
  }
  const cluster = clusterRes.body;
  const opinionIds = cluster.sub_opinions.map(idOfResource).filter((id): id is string => id !== undefined);
  if (opinionIds.length > MAX_OPINIONS) {
    throw new ApiError("provider_error", `CourtListener's cluster ${caselawId} lists ${opinionIds.length} opinions; Quarry reads at most ${MAX_OPINIONS} in one call.`, {
      hint: "The decision cannot be read whole, so none of it is served; nothing was charged. Read it on CourtListener.",
    });
  }
  const bodies: string[] = [clusterRes.text ?? JSON.stringify(clusterRes.body)];
  const sections: Section[] = [];
  const syllabus = str(cluster.syllabus);
  if (syllabus !== undefined) sections.push(...(await splitHtml(syllabus, "Syllabus", { paragraphsOnly: true }, ctx.signal)).sections);
  let plainOnly = true;
  let htmlOnly = true;
  for (const [i, id] of opinionIds.entries()) {
    const res = await ctx.upstream.send(opinionRequest(id), ctx.signal);
    if (res.status === 404) {
      throw new ApiError("provider_error", `CourtListener lists opinion ${id} in cluster ${caselawId} but does not answer it.`, {
        hint: "The decision cannot be read whole right now; nothing was charged. Retry later.",
      });
    }
    bodies.push(res.text ?? JSON.stringify(res.body));
    const read = await opinionSections(res.body, i, ctx.signal);
    sections.push(...read.sections);
    if (read.plain) htmlOnly = false;
    else plainOnly = false;
  }
  const url = courtListenerPage(str(cluster.absolute_url), caselawId);
  return {
    title: str(cluster.case_name) ?? str(cluster.case_name_full) ?? `CourtListener cluster ${caselawId}`,
    identifier: identifierOf.cluster(caselawId),
    source: "case_index",
    sourceClass: "institutional_transcription",
    language: null,
    sourceUrl: url,
    sha256: sha256Hex(...bodies),
    extractionMethod: plainOnly ? "api_text" : htmlOnly ? "api_html" : "api_text_and_html",
    sections,
    links: [{ label: "CourtListener", url }],
  };
}
