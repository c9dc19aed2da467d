import { Type } from "@sinclair/typebox";
import { validate } from "../src/validation.ts";
const s = Type.Object({ t: Type.String({ format: "date-time" }) });
for (const t of ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00", "2024-01-01", "2024-02-30T00:00:00Z", "2024-01-01T10:00:00+02:00", "2024-01-01 10:00:00Z", "2024-01-01t10:00:00z"]) console.log(t, JSON.stringify(validate(s, { t })));
