/**
 * navigation.route records from an engine's routes: one record per route (several only when
 * `alternatives` was asked and the engine found some), each with its stored detail (the steps).
 * Pure.
 */
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { type Located, round } from "../shared/places.ts";
import { creditOf, durationText, type Engine, type Mode, type Route, viaOf } from "../shared/routing.ts";

const MODE_TITLE: Record<Mode, string> = { driving: "Driving", walking: "Walking", cycling: "Cycling" };

/** The records of one answer. `mode` is the profile the engine really used; the credit adds Nominatim's when a place was geocoded. */
export function routeRecords(routes: readonly Route[], points: readonly Located[], mode: Mode, engine: Engine): RecordDraft[] {
  const labels = points.map((p) => p.label);
  const credit = creditOf(engine, points);
  const links: Link[] = [{ label: "Map data licence (OpenStreetMap)", url: engine.license_url }];
  return routes.map((route, i) => {
    const distance_km = round(route.distance_m / 1000, 2);
    const duration_min = round(route.duration_s / 60, 1);
    const via = viaOf(route);
    const nth = routes.length > 1 ? ` (route ${i + 1} of ${routes.length})` : "";
    const steps = route.steps.map((s): JsonObject => ({
      instruction: s.instruction,
      distance_m: round(s.distance_m, 1),
      duration_s: round(s.duration_s, 1),
      ...(s.name === undefined ? {} : { name: s.name }),
    }));
    return {
      summary: {
        title: `${MODE_TITLE[mode]} route: ${labels.join(" → ")}${nth}`,
        snippet: `${distance_km} km, ${durationText(duration_min)}${via ? `, via ${via.join(" and ")}` : ""}`,
        distance_km,
        duration_min,
        steps: steps.length,
        ...credit,
        ...(via ? { via } : {}),
      },
      detail: {
        distance_km,
        duration_min,
        steps,
        mode,
        places: points.map((p): JsonObject => ({ label: p.label, lat: p.lat, lon: p.lon, ...(p.matched ? { matched: p.matched } : {}) })),
        ...credit,
      },
      links,
    };
  });
}
