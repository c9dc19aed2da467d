/**
 * wger for fitness.exercises: pure mappers from an offset to a `GET /api/v2/exerciseinfo/` page
 * request and from exerciseinfo entries to the exercises the local index holds. No I/O.
 *
 * An exerciseinfo entry is one exercise with its category, `muscles` / `muscles_secondary`
 * (anatomical `name` and common English `name_en`, which may be empty), `equipment`, `license`
 * ({full_name, short_name, url}), `license_author` and `translations` (per language: name, HTML
 * description, aliases, comment `notes`, licence author, author history; language 2 is English).
 * Kept: exercises with an English translation that has a name, and a licence with a name.
 * The description's HTML becomes plain text. wger's `language__code=en` filter asks for
 * exercises that have an English translation (the translations are filtered here as well).
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { htmlToText } from "../shared/html-text.ts";
import { arr, defined, httpUrl, int, obj, type Obj, str } from "../shared/read.ts";
import type { JsonObject } from "../types.ts";

/** wger's language id for English. */
export const WGER_ENGLISH = 2;
/** Where people read an exercise (the public site, also when the API is reached elsewhere). */
export const WGER_SITE = "https://wger.de";

export interface Muscle {
  name: string;
  name_en?: string;
}

export interface Licence {
  name: string;
  short_name?: string;
  url?: string;
}

/** One exercise as the index holds it (plain JSON), with lower-cased text for matching. */
export interface IndexedExercise {
  id: number;
  uuid?: string;
  name: string;
  aliases: string[];
  description: string;
  category?: string;
  equipment: string[];
  muscles: Muscle[];
  secondary_muscles: Muscle[];
  author?: string;
  author_history: string[];
  licence: Licence;
  comments: string[];
  images: string[];
  /** Lower-cased name and aliases, and description, for `query`. */
  match: { names: string; text: string };
}

export interface ExerciseInfoPage {
  count?: number;
  next: string | null;
  results: Obj[];
}

export function toExerciseInfoRequest(offset: number, limit: number): UpstreamRequest {
  return {
    provider: "wger",
    method: "GET",
    path: "/api/v2/exerciseinfo/",
    query: { language__code: "en", limit, offset },
  };
}

export function parseExerciseInfoPage(body: unknown): ExerciseInfoPage {
  const o = obj(body);
  const results = arr(o?.results);
  if (o === undefined || results === undefined) {
    const detail = str(o?.detail);
    throw new ApiError("provider_error", `wger answered without an exercise list${detail === undefined ? "" : `: ${detail}`}.`);
  }
  return { count: int(o.count), next: str(o.next) ?? null, results: results.map(obj).filter((r): r is Obj => r !== undefined) };
}

function muscles(value: unknown): Muscle[] {
  return (arr(value) ?? []).flatMap((m) => {
    const name = str(obj(m)?.name);
    if (name === undefined) return [];
    const en = str(obj(m)?.name_en);
    return [en === undefined || en === name ? { name } : { name, name_en: en }];
  });
}

function names(value: unknown, key: string): string[] {
  return (arr(value) ?? []).flatMap((v) => {
    const s = str(obj(v)?.[key]);
    return s === undefined ? [] : [s];
  });
}

function licenceOf(value: unknown): Licence | undefined {
  const l = obj(value);
  const short = str(l?.short_name);
  const name = str(l?.full_name) ?? short;
  if (name === undefined) return undefined;
  return defined({ name, short_name: short, url: httpUrl(l?.url) }) as unknown as Licence;
}

/** An exerciseinfo entry as an indexed exercise, or null when it has no English name or no licence. */
export function toIndexedExercise(entry: Obj): IndexedExercise | null {
  const id = int(entry.id);
  const licence = licenceOf(entry.license);
  const english = (arr(entry.translations) ?? []).map(obj).find((t) => t !== undefined && int(t.language) === WGER_ENGLISH && str(t.name) !== undefined);
  if (id === undefined || licence === undefined || english === undefined) return null;
  const name = str(english.name)!;
  const aliases = names(english.aliases, "alias");
  const description = htmlToText(str(english.description) ?? "");
  const author = str(english.license_author) ?? str(entry.license_author);
  const history = (arr(english.author_history) ?? []).map(str).filter((s): s is string => s !== undefined);
  const uuid = str(entry.uuid);
  const category = str(obj(entry.category)?.name);
  return {
    id,
    ...(uuid === undefined ? {} : { uuid }),
    name,
    aliases,
    description,
    ...(category === undefined ? {} : { category }),
    equipment: names(entry.equipment, "name"),
    muscles: muscles(entry.muscles),
    secondary_muscles: muscles(entry.muscles_secondary),
    ...(author === undefined ? {} : { author }),
    author_history: history,
    licence,
    comments: names(english.notes, "comment"),
    images: (arr(entry.images) ?? []).flatMap((i) => httpUrl(obj(i)?.image) ?? []),
    match: { names: [name, ...aliases].join("\n").toLowerCase(), text: description.toLowerCase() },
  };
}

/** The page where people read an exercise. */
export function exerciseUrl(id: number): string {
  return `${WGER_SITE}/en/exercise/${id}/view-base`;
}

/** The credit line: title, author (when known), source and licence. */
export function attributionOf(exercise: Pick<IndexedExercise, "name" | "author" | "licence">): string {
  const by = exercise.author === undefined ? "" : ` by ${exercise.author}`;
  return `"${exercise.name}"${by}, from wger (${WGER_SITE}), licensed under ${exercise.licence.short_name ?? exercise.licence.name}`;
}

/** The licence as records and details carry it. */
export function licenceJson(licence: Licence): JsonObject {
  return defined({ name: licence.name, short_name: licence.short_name, url: licence.url });
}
