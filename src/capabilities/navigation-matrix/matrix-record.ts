/**
 * The one navigation.matrix record: travel times (minutes) and distances (km) between every pair of
 * the request's places, row = from, column = to, `null` where the engine found no route. A metric
 * the engine's answer lacks altogether stays unknown (every cell `null`) and `notes[]` says so. Pure.
 */
import type { RecordDraft } from "../types.ts";
import { type Located, round } from "../shared/places.ts";
import { creditOf, durationText, type Engine, type Matrix, type Mode } from "../shared/routing.ts";

const MODE_WORD: Record<Mode, string> = { driving: "driving", walking: "walking", cycling: "cycling" };

function scaled(cells: (number | null)[][] | undefined, n: number, factor: number, decimals: number): (number | null)[][] {
  if (cells === undefined) return Array.from({ length: n }, () => Array.from({ length: n }, () => null));
  return cells.map((row) => row.map((v) => (v === null ? null : round(v * factor, decimals))));
}

export function matrixRecord(matrix: Matrix, points: readonly Located[], mode: Mode, engine: Engine): { record: RecordDraft; notes: string[] } {
  const n = points.length;
  const locations = points.map((p) => p.label);
  const durations_min = scaled(matrix.durations_s, n, 1 / 60, 1);
  const distances_km = scaled(matrix.distances_km, n, 1, 2);
  const notes: string[] = [];
  if (matrix.durations_s === undefined) notes.push(`${engine.engine}'s answer carried no durations: every \`durations_min\` cell is null (unknown).`);
  if (matrix.distances_km === undefined) notes.push(`${engine.engine}'s answer carried no distances: every \`distances_km\` cell is null (unknown).`);
  const km = distances_km[0]?.[1];
  const min = durations_min[0]?.[1];
  const pair = [km === null || km === undefined ? undefined : `${km} km`, min === null || min === undefined ? undefined : durationText(min)].filter((s) => s !== undefined);
  return {
    record: {
      summary: {
        title: `Travel matrix (${MODE_WORD[mode]}): ${n} places`,
        snippet: `${n} × ${n} ${MODE_WORD[mode]} times and distances; ${locations[0]} → ${locations[1]}: ${pair.length > 0 ? pair.join(", ") : "no route"}`,
        locations,
        durations_min,
        distances_km,
        ...creditOf(engine, points),
      },
    },
    notes,
  };
}
