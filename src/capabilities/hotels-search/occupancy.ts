/**
 * Occupancy (hotels.search): what the caller asked for, and whether the source answered for it.
 *
 * SerpApi's google_hotels request carries `adults`, `children` (a count) and `children_ages`; its answer
 * echoes the request it ran in `search_parameters`, and each property may say who its prices are for
 * (`prices[].num_guests`) and, for vacation rentals, how many it sleeps (`essential_info`: "Sleeps 6").
 * From those, never from guesses:
 * - `partially_applied`: the echo names another number of adults or children or other child ages than
 *   requested, or every price of the property is quoted for fewer guests, or it sleeps fewer; the record's
 *   `occupancy_note` says which part was ignored;
 * - `as_requested`: the echo names the requested adults and children and nothing in the record
 *   contradicts it;
 * - `unconfirmed`: the answer echoes no occupancy, so nothing says what the source applied.
 */
import { arr, int, type Obj, str } from "../shared/read.ts";
import type { JsonObject } from "../types.ts";

export const OCCUPANCY_STATUSES = ["as_requested", "partially_applied", "unconfirmed"] as const;
export type OccupancyStatus = (typeof OCCUPANCY_STATUSES)[number];

export interface Occupancy {
  adults: number;
  children: number;
  children_ages?: number[];
}

export function requestedOccupancy(query: { adults: number; children_ages?: number[] | undefined }): Occupancy {
  const ages = query.children_ages ?? [];
  return { adults: query.adults, children: ages.length, ...(ages.length > 0 ? { children_ages: [...ages] } : {}) };
}

function guests(o: Occupancy): number {
  return o.adults + o.children;
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : one === "child" ? "ren" : "s"}`;
}

/** "5,8" or [5, 8] or 5 → [5, 8]; undefined when the echo holds no ages. */
function agesOf(value: unknown): number[] | undefined {
  if (typeof value === "number") return [value];
  const list = typeof value === "string" ? value.split(",") : arr(value);
  if (list === undefined) return undefined;
  const ages = list.map(int).filter((n): n is number => n !== undefined);
  return ages.length > 0 ? ages : undefined;
}

/**
 * What the answer as a whole says about the requested occupancy: undefined when it echoes none
 * (unconfirmed), else the parts it did not apply (empty when it applied all of them).
 */
export function searchFindings(echo: Obj | undefined, requested: Occupancy): string[] | undefined {
  const adults = int(echo?.adults);
  const children = int(echo?.children);
  if (adults === undefined) return undefined;
  const out: string[] = [];
  if (adults !== requested.adults) out.push(`the source answered for ${plural(adults, "adult")}, ${requested.adults} requested`);
  if (children !== undefined && children !== requested.children) {
    out.push(`the source answered for ${plural(children, "child")}, ${requested.children} requested`);
  }
  const echoedAges = agesOf(echo?.children_ages);
  const ages = requested.children_ages;
  if (ages !== undefined && echoedAges !== undefined && echoedAges.join(",") !== ages.join(",")) {
    out.push(`the source answered for child ages ${echoedAges.join(", ")}, ${ages.join(", ")} requested`);
  }
  return out;
}

/** What one property says: every price quoted for fewer guests, or a smaller capacity. */
export function propertyFindings(property: Obj, requested: Occupancy): string[] {
  const out: string[] = [];
  const want = guests(requested);
  const quoted = (arr(property.prices) ?? [])
    .map((p) => int((p as Obj | null)?.num_guests))
    .filter((n): n is number => n !== undefined);
  if (quoted.length > 0 && quoted.every((n) => n < want)) {
    out.push(`its prices are for ${plural(Math.max(...quoted), "guest")}, ${want} requested`);
  }
  for (const info of arr(property.essential_info) ?? []) {
    const sleeps = /^sleeps\s+(\d+)/i.exec(str(info) ?? "");
    if (sleeps && Number(sleeps[1]) < want) out.push(`it sleeps ${sleeps[1]}, ${want} guests requested`);
  }
  return out;
}

/** The record keys of occupancy: `requested_occupancy`, `occupancy_status` and, when ignored in part, `occupancy_note`. */
export function occupancyKeys(search: string[] | undefined, property: string[], requested: Occupancy): JsonObject {
  const findings = [...(search ?? []), ...property];
  const status: OccupancyStatus = findings.length > 0 ? "partially_applied" : search === undefined ? "unconfirmed" : "as_requested";
  const out: JsonObject = { requested_occupancy: { ...requested }, occupancy_status: status };
  if (findings.length > 0) out.occupancy_note = `${findings.join("; ")}.`.replace(/^./, (c) => c.toUpperCase());
  return out;
}
