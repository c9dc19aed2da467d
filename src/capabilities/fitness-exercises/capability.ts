/**
 * fitness.exercises (spec 4.6): exercises from a bounded cached index of wger's publicly licensed
 * English exercise instructions, searched locally (exercise-index.ts). Local paging, free, details
 * (instructions with attribution and licence) stored at search time.
 *
 * The index comes through the context (`ctx.index`), not a module global: loaded on first use
 * within the request's 15 s deadline (the load has 13 s of its own), refreshed in the background
 * once a day (the previous index served meanwhile, and kept when a refresh fails). When the first
 * load fails the request answers `502 provider_error` (`504 provider_timeout` when wger is too slow)
 * and nothing is cached: the next request tries again.
 */
import { Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import { untilAborted } from "../../upstream/deadlines.ts";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { type ExerciseIndex, exercisePage, GENERAL_INFORMATION, INDEX_MAX_PAGES, INDEX_PAGE_SIZE, loadExerciseIndex, MAX_RESULTS } from "./exercise-index.ts";
import { fitnessExercisesSchema } from "./schema.ts";

export { type FitnessExercisesQuery, fitnessExercisesSchema } from "./schema.ts";

export const INDEX_NAME = "wger-exercises";
/** The index is refreshed (in the background) when older than this. */
export const INDEX_REFRESH_MS = 24 * 60 * 60 * 1000;
/** A load of the index gives up after this, inside the first request's 15 s deadline. */
export const INDEX_LOAD_TIMEOUT_MS = 13_000;

/** Waiting for the index past the request's deadline (the load goes on for later requests). */
const indexTimeout = () => new ApiError("provider_timeout", "The wger exercise index did not load before the deadline.");

export const fitnessExercises = defineCapability({
  id: "fitness.exercises",
  title: "Exercise instructions",
  summary: "Exercise instructions from wger's openly licensed English exercises, by name, equipment or muscle.",
  description:
    "Searches a bounded cached index of wger's publicly licensed English exercises (at most " +
    `${INDEX_MAX_PAGES * INDEX_PAGE_SIZE}, refreshed daily) by \`query\` (name, aliases or instructions), \`equipment\` ` +
    "and `muscle` (anatomical or English name, primary or secondary); every criterion given must match, and with " +
    "none the index is listed alphabetically. Records carry equipment, muscles and secondary muscles, the author " +
    "when known, and always an attribution line and the licence. The result set (at most " +
    `${MAX_RESULTS}) is held in the session: local paging, \`more\` is free. \`details\` gives the stored instructions ` +
    "with aliases, comments, muscles, images, attribution and licence (free). " +
    GENERAL_INFORMATION,
  topic: "food and fitness",
  schema: fitnessExercisesSchema,
  recordKeys: Type.Object({
    equipment: Type.Optional(Type.Array(Type.String())),
    muscles: Type.Optional(Type.Array(Type.String(), { description: "Primary muscles (anatomical names)." })),
    secondary_muscles: Type.Optional(Type.Array(Type.String(), { description: "Secondary muscles (anatomical names)." })),
    author: Type.Optional(Type.String({ description: "The licence author of the instructions." })),
    attribution: Type.String({ description: "Credit line: title, author, source (wger) and licence." }),
    licence: Type.Object(
      {
        name: Type.String(),
        short_name: Type.Optional(Type.String()),
        url: Type.Optional(Type.String()),
      },
      { description: "The licence of the instructions (wger's full and short name, and its URL)." },
    ),
  }),
  paging: "local",
  deadlineMs: 15_000,
  cost: free("Free: wger's public API has no per-call cost, and searches are answered from the cached index."),
  sources: [
    {
      id: "wger",
      title: "wger",
      providers: ["wger"],
      async search(ctx, query) {
        const index = await untilAborted(
          ctx.index<ExerciseIndex>(INDEX_NAME, { refreshMs: INDEX_REFRESH_MS, loadTimeoutMs: INDEX_LOAD_TIMEOUT_MS }, (io) =>
            loadExerciseIndex(io.upstream, io.signal),
          ),
          ctx.signal,
          indexTimeout,
        );
        return exercisePage(index, query);
      },
    },
  ],
  update: { example: { title: "Squats with a barbell only", params: { equipment: "barbell" } } },
  actions: {
    details: {
      description: "The stored instructions with aliases, comments, muscles, images, attribution and licence (free).",
      mode: "stored",
    },
  },
  examples: [
    { title: "Squats", body: { query: "squat" } },
    { title: "Exercises for the glutes, 3 a page", body: { muscle: "glutes", num: 3 } },
    { title: "Kettlebell exercises", body: { equipment: "kettlebell" } },
  ],
});
