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
 * exercises that have an English translation (the translations are filtered here as well). The
 * request declares the fields these mappers read; a wger that renamed one answers drift.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullable, nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { htmlToText } from "../shared/html-text.ts";
import { defined, httpUrl, str } from "../shared/read.ts";
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

const muscle = Type.Object({ name: Type.String(), name_en: nullish(Type.String()) });

/** One translation of an exercise: its language (2 is English), name, HTML description, aliases, comments and authors. */
const translation = Type.Object({
  language: Type.Integer(),
  name: Type.String(),
  description: nullish(Type.String()),
  aliases: Type.Optional(Type.Array(Type.Object({ alias: nullish(Type.String()) }))),
  notes: Type.Optional(Type.Array(Type.Object({ comment: nullish(Type.String()) }))),
  license_author: nullish(Type.String()),
  author_history: Type.Optional(Type.Array(Type.String())),
});

/** One exerciseinfo entry, as far as the index reads it. */
export const wgerExercise = Type.Object({
  id: Type.Integer(),
  uuid: nullish(Type.String()),
  category: nullish(Type.Object({ name: nullish(Type.String()) })),
  muscles: Type.Optional(Type.Array(muscle)),
  muscles_secondary: Type.Optional(Type.Array(muscle)),
  equipment: Type.Optional(Type.Array(Type.Object({ name: nullish(Type.String()) }))),
  license: nullish(Type.Object({ full_name: nullish(Type.String()), short_name: nullish(Type.String()), url: nullish(Type.String()) })),
  license_author: nullish(Type.String()),
  images: Type.Optional(Type.Array(Type.Object({ image: nullish(Type.String()) }))),
  translations: Type.Array(translation),
});

/** A page of `GET /api/v2/exerciseinfo/` (Django REST framework's limit/offset envelope). */
export const wgerExerciseInfoList = Type.Object({
  count: Type.Optional(Type.Integer()),
  next: nullable(Type.String()),
  results: Type.Array(wgerExercise),
});

export type WgerExercise = Static<typeof wgerExercise>;
export type ExerciseInfoPage = Static<typeof wgerExerciseInfoList>;

export function toExerciseInfoRequest(offset: number, limit: number): JsonRequest<typeof wgerExerciseInfoList> {
  return {
    provider: "wger",
    method: "GET",
    path: "/api/v2/exerciseinfo/",
    query: { language__code: "en", limit, offset },
    response: wgerExerciseInfoList,
  };
}

function muscles(value: WgerExercise["muscles"]): Muscle[] {
  return (value ?? []).flatMap((m) => {
    const name = str(m.name);
    if (name === undefined) return [];
    const en = str(m.name_en);
    return [en === undefined || en === name ? { name } : { name, name_en: en }];
  });
}

function names(values: (string | null | undefined)[]): string[] {
  return values.flatMap((v) => {
    const s = str(v);
    return s === undefined ? [] : [s];
  });
}

function licenceOf(l: WgerExercise["license"]): Licence | undefined {
  const short = str(l?.short_name);
  const name = str(l?.full_name) ?? short;
  if (name === undefined) return undefined;
  return defined({ name, short_name: short, url: httpUrl(l?.url) }) as unknown as Licence;
}

/** An exerciseinfo entry as an indexed exercise, or null when it has no English name or no licence. */
export function toIndexedExercise(entry: WgerExercise): IndexedExercise | null {
  const id = entry.id;
  const licence = licenceOf(entry.license);
  const english = entry.translations.find((t) => t.language === WGER_ENGLISH && str(t.name) !== undefined);
  if (licence === undefined || english === undefined) return null;
  const name = str(english.name)!;
  const aliases = names((english.aliases ?? []).map((a) => a.alias));
  const description = htmlToText(str(english.description) ?? "");
  const author = str(english.license_author) ?? str(entry.license_author);
  const history = names(english.author_history ?? []);
  const uuid = str(entry.uuid);
  const category = str(entry.category?.name);
  return {
    id,
    ...(uuid === undefined ? {} : { uuid }),
    name,
    aliases,
    description,
    ...(category === undefined ? {} : { category }),
    equipment: names((entry.equipment ?? []).map((e) => e.name)),
    muscles: muscles(entry.muscles),
    secondary_muscles: muscles(entry.muscles_secondary),
    ...(author === undefined ? {} : { author }),
    author_history: history,
    licence,
    comments: names((english.notes ?? []).map((n) => n.comment)),
    images: (entry.images ?? []).flatMap((i) => httpUrl(i.image) ?? []),
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

/** The live check's probe: the index's own request for one English exercise. */
export const wgerProbe: ProviderProbe = {
  provider: "wger",
  what: "one English exercise (exerciseinfo, limit 1)",
  request: toExerciseInfoRequest(0, 1),
};
