/**
 * fitness.exercises's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, text } from "../framework/fields.ts";

const criterion = (description: string) => Type.Optional(text(1, 120, description, { notBlank: true }));

export const fitnessExercisesSchema = Type.Object(
  {
    query: criterion('Words of the exercise\'s name, aliases or instructions, e.g. "squat".'),
    equipment: criterion('Equipment, e.g. "dumbbell", "barbell", "kettlebell", "bodyweight".'),
    muscle: criterion('A muscle, anatomical or common English name, e.g. "chest", "quadriceps", "biceps".'),
    num: num(20, 10),
  },
  {
    additionalProperties: false,
    description: "Every criterion given must match; with none, the index is listed alphabetically.",
  },
);

export type FitnessExercisesQuery = Static<typeof fitnessExercisesSchema>;
