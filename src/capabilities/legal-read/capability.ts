/**
 * legal.read (spec 4.6): one legal document read section by section from an official or
 * institutional publication. `document` is a tagged union by `source`: `eu_official` (an EU act's
 * XHTML or HTML by CELEX and language from the Publications Office's CELLAR, eu-official.ts), `us_reports` (the Library of Congress's United States Reports), `case_index`
 * (CourtListener clusters and opinions; needs COURTLISTENER_API_KEY, so that variant alone is
 * unavailable without it) and `historical` (a documented list of works, historical-works.ts). The
 * whole document is fetched once and split into sections held in the session (local paging: `num`
 * sections a page, `more` continues the same document, free). Every section's details are stored:
 * its verbatim text with the source's URL, SHA-256 and retrieval time. Free. A source that cannot be
 * reached is `provider_error`, never replaced by other text.
 */
import { Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { COURTLISTENER } from "../shared/courtlistener.ts";
import { SOURCE_CLASSES } from "../shared/legal.ts";
import { readCase } from "./case-index.ts";
import { CELLAR_PROVIDER, cellarDocumentRequest, euOfficialDocument } from "./eu-official.ts";
import { fetchDocument } from "./fetch.ts";
import { readHistorical } from "./historical.ts";
import { historicalWork } from "./historical-works.ts";
import { documentPage } from "./sections.ts";
import { readUsReports } from "./us-reports.ts";
import { DAY } from "../framework/durations.ts";
import { legalReadSchema } from "./schema.ts";

export { type LegalReadQuery, legalReadSchema } from "./schema.ts";

export const legalRead = defineCapability({
  id: "legal.read",
  title: "Read a legal document",
  summary: "A legal document's exact text, section by section, from EU law (EUR-Lex's texts), the US Reports, CourtListener or a historical work's source.",
  description:
    "Reads one document whole and pages through its sections (`num` a page; `more` continues the same document, " +
    "free). `document` is {source: eu_official, celex, language} (the act's HTML from the Publications Office's " +
    "CELLAR, the repository EUR-Lex publishes from, split by article, recital and annex), {source: us_reports, item_id: usrep######} (the Library of Congress's United States Reports: its " +
    "full-text file, else its PDF page by page with `pdf_page`, and `printed_page` where the page shows it; when " +
    "the Library's item API is challenged, the PDF at the collection's address for the id), " +
    "{source: case_index, caselaw_id} (CourtListener: the cluster's opinions; needs COURTLISTENER_API_KEY) or " +
    "{source: historical, work_id} (a documented list of works read from their public sources). Records carry " +
    "`identifier`, `source_class`, `section`, `total_sections` and `extraction_method` always, and `language`, " +
    "`pdf_page`, `printed_page` and `paragraph_anchors` when the source has them. `details` (free, stored) is the " +
    "section's verbatim text with `source_url`, `retrieved_at`, `source_sha256` of the bytes fetched, " +
    "`legal_status: not_assessed` (Quarry does not say whether a text is in force) and " +
    "`complete_document_available_through_more: true`. A source that cannot be reached is provider_error: no other " +
    "text is ever put in its place.",
  topic: "research and reading",
  schema: legalReadSchema,
  sourceChecked: ["document"],
  recordKeys: Type.Object({
    identifier: Type.String({ description: "The document: CELEX:…, loc:usrep…, courtlistener-cluster:… or historical:…." }),
    source_class: Type.String({ enum: [...SOURCE_CLASSES], description: "How close the text is to the authoritative publication." }),
    section: Type.Integer({ minimum: 1, description: "This section's number, from 1." }),
    total_sections: Type.Integer({ minimum: 1, description: "Sections in the whole document." }),
    extraction_method: Type.String({ description: "How the text was obtained: html_structure, html_paragraphs, api_text, api_html, pdf_text." }),
    language: Type.Optional(Type.String({ description: "The text's language, when the source states it." })),
    pdf_page: Type.Optional(Type.Integer({ minimum: 1, description: "US Reports: the PDF page this section is." })),
    printed_page: Type.Optional(Type.String({ description: "US Reports: the page number printed on it." })),
    paragraph_anchors: Type.Optional(Type.Array(Type.String(), { description: "The source's element ids within the section (URL fragments)." })),
  }),
  paging: "local",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free("Free: the Publications Office, the Library of Congress, CourtListener and the historical sources cost nothing; `more` and details are free."),
  variants: {
    field: "document/source",
    options: {
      eu_official: {
        sources: [
          {
            id: "cellar",
            title: "Publications Office of the EU (CELLAR)",
            providers: [CELLAR_PROVIDER],
            async search(ctx, query) {
              const d = query.document;
              const fetched = await fetchDocument(ctx, cellarDocumentRequest(d.celex, d.language));
              return documentPage(await euOfficialDocument(fetched, d.celex, d.language, ctx.signal), ctx.now().toISOString());
            },
          },
        ],
      },
      us_reports: {
        sources: [
          {
            id: "loc",
            title: "Library of Congress",
            providers: ["loc"],
            async search(ctx, query) {
              return documentPage(await readUsReports(ctx, query.document.item_id), ctx.now().toISOString());
            },
          },
        ],
      },
      case_index: {
        requiredKeys: ["COURTLISTENER_API_KEY"],
        sources: [
          {
            id: COURTLISTENER,
            title: "CourtListener",
            providers: [COURTLISTENER],
            async search(ctx, query) {
              return documentPage(await readCase(ctx, query.document.caselaw_id), ctx.now().toISOString());
            },
          },
        ],
      },
      historical: {
        sources: [
          {
            id: "historical",
            title: "Historical works",
            providers: ["avalon", "un", "gesetze"],
            async search(ctx, query) {
              const work = historicalWork(query.document.work_id);
              // The schema's enum lists every work; a stored search can outlive one that was dropped.
              if (work === undefined) {
                throw invalidRequest([{ path: "/document/work_id", message: `no historical work "${query.document.work_id}" in this deployment` }]);
              }
              return documentPage(await readHistorical(ctx, work), ctx.now().toISOString());
            },
          },
        ],
      },
    },
  },
  update: {
    rule: "Params replace the stored fields: a `document` sent replaces the stored one whole; null restores a default. The document is fetched again (free).",
    example: { title: "The same document, five sections a page", params: { num: 5 } },
  },
  actions: {
    details: {
      description:
        "The section's verbatim text with the document's title, source, source_url, retrieved_at, source_sha256, " +
        "extraction_method, legal_status (not_assessed), section and total_sections, and anchors and pages when present. " +
        "Free; stored when the document was read.",
      mode: "stored",
    },
  },
  examples: [
    {
      title: "The ePrivacy Directive as consolidated on 19 December 2009 (the Publications Office's text), three articles a page",
      body: { document: { source: "eu_official", celex: "02002L0058-20091219", language: "EN" } },
    },
    { title: "A US Supreme Court order from CourtListener (Noem v. Abrego Garcia)", body: { document: { source: "case_index", caselaw_id: "10376225" } } },
    { title: "Brown v. Board of Education in the United States Reports (Library of Congress)", body: { document: { source: "us_reports", item_id: "usrep347483" } } },
    { title: "Magna Carta (1215) from the Avalon Project", body: { document: { source: "historical", work_id: "magna_carta_1215" } } },
  ],
});
