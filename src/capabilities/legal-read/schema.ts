/**
 * legal.read's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOfOr, taggedUnion } from "../framework/fields.ts";
import { CELEX_PATTERN, EU_LANGUAGES } from "../shared/legal.ts";
import { HISTORICAL_WORK_IDS, HISTORICAL_WORKS } from "./historical-works.ts";

const branch = <P extends Parameters<typeof Type.Object>[0]>(properties: P) => Type.Object(properties, { additionalProperties: false });

export const legalReadSchema = Type.Object(
  {
    document: taggedUnion(
      "source",
      [
        branch({
          source: Type.Literal("eu_official", { description: "EU law as the Publications Office of the EU publishes it (EUR-Lex's texts, read from its CELLAR repository)." }),
          celex: Type.String({ pattern: CELEX_PATTERN, description: "CELEX number, e.g. 32016R0679, or 02002L0058-20091219 for a consolidated version." }),
          language: oneOfOr(EU_LANGUAGES, "EN", "One of the EU's 24 official languages (default EN)."),
        }),
        branch({
          source: Type.Literal("us_reports", { description: "The United States Reports at the Library of Congress (volumes 1-542)." }),
          item_id: Type.String({ pattern: "^usrep[0-9]{6}$", description: "The Library's item id: usrep + volume (3 digits) + first page (3 digits), e.g. usrep347483." }),
        }),
        branch({
          source: Type.Literal("case_index", { description: "CourtListener's case law (opinion clusters)." }),
          caselaw_id: Type.String({ pattern: "^[0-9]{1,25}$", description: "CourtListener cluster id (a legal.search `us` record's full_text gives it)." }),
        }),
        branch({
          source: Type.Literal("historical", { description: "A known historical work from its public source." }),
          work_id: Type.Unsafe<string>({
            type: "string",
            enum: [...HISTORICAL_WORK_IDS],
            description: `A known historical work: ${HISTORICAL_WORKS.map((w) => `${w.id} (${w.title})`).join(", ")}.`,
          }),
        }),
      ],
      "The document: {source: eu_official, celex, language?}, {source: us_reports, item_id}, {source: case_index, caselaw_id} or {source: historical, work_id}.",
    ),
    num: num(10, 3, "Sections per page."),
  },
  { additionalProperties: false },
);

export type LegalReadQuery = Static<typeof legalReadSchema>;
