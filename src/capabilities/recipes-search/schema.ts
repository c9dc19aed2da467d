/**
 * recipes.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, text } from "../framework/fields.ts";

export const ONE_OF = "Give exactly one of `query`, `ingredient`, `category`, `cuisine`; they cannot be combined.";

const selector = (description: string) => Type.Optional(text(1, 120, `${description} ${ONE_OF}`, { notBlank: true }));

export const recipesSearchSchema = Type.Object(
  {
    query: selector(`Meal name or part of it, e.g. "Risotto".`),
    ingredient: selector(`Main ingredient, e.g. "chicken breast".`),
    category: selector(`Meal category, e.g. "Seafood", "Dessert", "Vegetarian".`),
    cuisine: selector(`Cuisine (area), e.g. "Italian", "Japanese".`),
    num: num(20, 10),
  },
  { additionalProperties: false, description: ONE_OF },
);

export type RecipesSearchQuery = Static<typeof recipesSearchSchema>;
