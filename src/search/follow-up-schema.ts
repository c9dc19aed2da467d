/** The FollowUpRequest body of spec 4.5 (the "exactly one of" rule is checked in code). */
import { Type } from "@sinclair/typebox";
import { RECORD_ID_PATTERN, SEARCH_ID_PATTERN } from "../ids.ts";

export const FollowUpRequestSchema = Type.Object(
  {
    search_id: Type.Optional(
      Type.String({ pattern: SEARCH_ID_PATTERN, description: "A search from an execute call (search-scope actions)." }),
    ),
    record_id: Type.Optional(
      Type.String({ pattern: RECORD_ID_PATTERN, description: "A record from a search's results (record actions)." }),
    ),
    action: Type.String({
      minLength: 1,
      maxLength: 40,
      description: "`more` or `update` with search_id; a record action such as `details` with record_id.",
    }),
    params: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "For `update`: any subset of the capability's request fields." }),
    ),
  },
  {
    additionalProperties: false,
    description: "Exactly one of search_id or record_id must be given.",
  },
);
