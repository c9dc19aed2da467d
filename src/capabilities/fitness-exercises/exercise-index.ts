/**
 * fitness.exercises' index: wger's publicly licensed English exercises, loaded page by page into
 * memory (bounded), searched locally, and mapped to records with stored details.
 *
 * Bounds: pages of `INDEX_PAGE_SIZE` (100) exercises, at most `INDEX_MAX_PAGES` (10) pages, so at
 * most 1,000 exercises are fetched and held; the first page says how many there are (`count`) and
 * the rest are asked for `INDEX_CONCURRENCY` (3) at a time. A page that fails fails the load (the
 * framework then keeps the previous index, or, on a first load, the request fails and nothing is
 * cached). A wger with more exercises than the bound is held in part, and answers say so.
 *
 * Matching (case-insensitive, all given criteria together): `query` — every word appears in the
 * name, an alias or the instructions (name and alias matches first); `equipment` — a piece of
 * equipment whose name contains it ("bodyweight" matches "none (bodyweight exercise)"); `muscle` —
 * a primary or secondary muscle whose anatomical or English name contains it (primary first).
 * Ties keep alphabetical order. No criterion lists the index alphabetically. At most
 * `MAX_RESULTS` (100) records are held per search.
 */
import type { UpstreamClient } from "../../upstream/types.ts";
import { clip, defined } from "../shared/read.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";
import { attributionOf, exerciseUrl, type IndexedExercise, licenceJson, type Muscle, toExerciseInfoRequest, toIndexedExercise } from "./wger.ts";

export const INDEX_PAGE_SIZE = 100;
export const INDEX_MAX_PAGES = 10;
export const INDEX_CONCURRENCY = 3;
export const MAX_RESULTS = 100;
export const GENERAL_INFORMATION =
  "General information only, not medical or training advice: check with a qualified professional before starting an exercise.";

export interface ExerciseIndex {
  exercises: IndexedExercise[];
  /** How many exercises wger reported (its `count`), when it did. */
  reported?: number;
  /** Whether wger has more exercises than the pages the bound let the load fetch. */
  partial: boolean;
}

export interface IndexBounds {
  pageSize: number;
  maxPages: number;
  concurrency: number;
}

const DEFAULT_BOUNDS: IndexBounds = { pageSize: INDEX_PAGE_SIZE, maxPages: INDEX_MAX_PAGES, concurrency: INDEX_CONCURRENCY };

/** Load the index: the first page, then the others the count calls for, within the bounds. */
export async function loadExerciseIndex(upstream: UpstreamClient, signal: AbortSignal, bounds: IndexBounds = DEFAULT_BOUNDS): Promise<ExerciseIndex> {
  const fetchPage = async (page: number) => {
    const response = await upstream.send(toExerciseInfoRequest(page * bounds.pageSize, bounds.pageSize), signal);
    return response.body;
  };
  const first = await fetchPage(0);
  const pages = [first];
  if (first.count !== undefined) {
    const wanted = Math.min(bounds.maxPages, Math.ceil(first.count / bounds.pageSize));
    const rest = Array.from({ length: Math.max(0, wanted - 1) }, (_, i) => i + 1);
    for (let i = 0; i < rest.length; i += bounds.concurrency) {
      pages.push(...(await Promise.all(rest.slice(i, i + bounds.concurrency).map(fetchPage))));
    }
  } else {
    // No count: follow `next` one page at a time.
    for (let page = 1; page < bounds.maxPages && pages.at(-1)!.next !== null && pages.at(-1)!.results.length > 0; page++) {
      pages.push(await fetchPage(page));
    }
  }
  const byId = new Map<number, IndexedExercise>();
  for (const entry of pages.flatMap((p) => p.results)) {
    const exercise = toIndexedExercise(entry);
    if (exercise !== null && !byId.has(exercise.id)) byId.set(exercise.id, exercise);
  }
  const exercises = [...byId.values()].sort((a, b) => a.name.localeCompare(b.name, "en") || a.id - b.id);
  const fetched = pages.length * bounds.pageSize;
  const partial = first.count !== undefined ? first.count > fetched : pages.at(-1)!.next !== null;
  return { exercises, ...(first.count === undefined ? {} : { reported: first.count }), partial };
}

export interface ExerciseCriteria {
  query?: string;
  equipment?: string;
  muscle?: string;
}

const words = (s: string) => s.toLowerCase().split(/\s+/).filter((w) => w !== "");
const muscleHas = (list: Muscle[], term: string) => list.some((m) => m.name.toLowerCase().includes(term) || (m.name_en?.toLowerCase().includes(term) ?? false));

/** The exercises matching every given criterion, best first (see the header). */
export function searchExercises(index: ExerciseIndex, criteria: ExerciseCriteria): IndexedExercise[] {
  const queryWords = criteria.query === undefined ? [] : words(criteria.query);
  const equipment = criteria.equipment?.trim().toLowerCase();
  const muscle = criteria.muscle?.trim().toLowerCase();
  const ranked: { exercise: IndexedExercise; rank: number }[] = [];
  index.exercises.forEach((exercise) => {
    let rank = 0;
    if (queryWords.length > 0) {
      const inNames = queryWords.every((w) => exercise.match.names.includes(w));
      if (!inNames && !queryWords.every((w) => exercise.match.names.includes(w) || exercise.match.text.includes(w))) return;
      if (!inNames) rank += 2;
    }
    if (equipment !== undefined && !exercise.equipment.some((e) => e.toLowerCase().includes(equipment))) return;
    if (muscle !== undefined) {
      if (!muscleHas(exercise.muscles, muscle)) {
        if (!muscleHas(exercise.secondary_muscles, muscle)) return;
        rank += 1;
      }
    }
    ranked.push({ exercise, rank });
  });
  // Array.prototype.sort is stable: equal ranks keep the index's alphabetical order.
  return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.exercise);
}

const muscleNames = (list: Muscle[]) => (list.length > 0 ? list.map((m) => m.name) : undefined);
const nonEmpty = (list: string[]) => (list.length > 0 ? list : undefined);

/** One exercise as a record: spec keys in the summary, the instructions with attribution stored as its detail. */
export function toExerciseRecord(exercise: IndexedExercise): RecordDraft {
  const url = exerciseUrl(exercise.id);
  const attribution = attributionOf(exercise);
  const licence = licenceJson(exercise.licence);
  const summary = {
    title: exercise.name,
    url,
    ...defined({
      snippet: exercise.description === "" ? undefined : clip(exercise.description, 240),
      equipment: nonEmpty(exercise.equipment),
      muscles: muscleNames(exercise.muscles),
      secondary_muscles: muscleNames(exercise.secondary_muscles),
      author: exercise.author,
    }),
    attribution,
    licence,
  };
  const asJson = (list: Muscle[]): JsonObject[] => list.map((m) => defined({ name: m.name, name_en: m.name_en }));
  const detail: JsonObject = defined({
    source: "wger",
    wger_id: exercise.id,
    uuid: exercise.uuid,
    title: exercise.name,
    url,
    category: exercise.category,
    aliases: nonEmpty(exercise.aliases),
    instructions: exercise.description === "" ? undefined : exercise.description,
    comments: nonEmpty(exercise.comments),
    equipment: exercise.equipment,
    muscles: asJson(exercise.muscles),
    secondary_muscles: asJson(exercise.secondary_muscles),
    images: nonEmpty(exercise.images),
    author: exercise.author,
    author_history: nonEmpty(exercise.author_history),
    attribution,
    licence,
    general_information: GENERAL_INFORMATION,
  });
  const links: Link[] = [{ label: "Exercise on wger", url }];
  if (exercise.licence.url !== undefined) links.push({ label: `Licence (${exercise.licence.short_name ?? exercise.licence.name})`, url: exercise.licence.url });
  return { summary, detail, links, ref: { source: "wger", wger_id: exercise.id } };
}

/** The whole result set of a search (local paging), with notes on what the bounds left out. */
export function exercisePage(index: ExerciseIndex, criteria: ExerciseCriteria): SourcePage {
  const found = searchExercises(index, criteria);
  const notes: string[] = [];
  if (found.length > MAX_RESULTS) {
    notes.push(`${found.length} exercises matched; the first ${MAX_RESULTS} are listed. Narrow the search with query, equipment or muscle.`);
  }
  if (index.partial) {
    notes.push(
      `The index holds ${index.exercises.length} publicly licensed English exercises from the first ${INDEX_MAX_PAGES * INDEX_PAGE_SIZE} of wger's ${index.reported ?? "more"}; exercises beyond them are not searched.`,
    );
  }
  return { records: found.slice(0, MAX_RESULTS).map(toExerciseRecord), next: null, ...(notes.length > 0 ? { notes } : {}) };
}
