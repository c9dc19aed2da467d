/**
 * The wire shapes: what the service answers, each declared once in TypeBox (request schemas live
 * with their capability or route). The OpenAPI document publishes them as components
 * (src/http/openapi.ts) and the code that builds an answer takes its type from here: the type of
 * each answer is exported under its schema's name (`Static<typeof …>`), so the two cannot drift.
 *
 * A leaf (docs/architecture.md, "Layers"): the search, Sharpen, the catalog and the accounts each
 * build answers, so this imports only other leaves.
 */
import { type Static, type TSchema, type TUnsafe, Type } from "@sinclair/typebox";
import { STAGE_TIERS_TEXT, STAGES, TIERS } from "./config.ts";
import { ERROR_CODES } from "./errors.ts";

/** A shape the OpenAPI document publishes as the component `name` (its `$id`; COMPONENTS lists them). */
function component<T extends TSchema>(name: string, schema: T): T {
  return { ...schema, $id: name };
}

/** A use of a component: on the wire the `$ref` to `#/components/schemas/<$id>`, to TypeScript its own type. */
function ref<T extends TSchema>(shape: T): TUnsafe<Static<T>> {
  if (shape.$id === undefined) throw new Error("ref: only a component (named by its $id) is referred to");
  return Type.Unsafe<Static<T>>({ $ref: `#/components/schemas/${shape.$id}` });
}

export const Balance = component("Balance", Type.Object({
  used: Type.Integer({ minimum: 0 }),
  cap: Type.Integer({ minimum: 0 }),
  period_end: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
}));
export type Balance = Static<typeof Balance>;

export const Violation = component("Violation", Type.Object({
  path: Type.String({ description: "JSON pointer to the offending field; empty string for the body." }),
  message: Type.String(),
}));

export const ErrorEnvelope = component("ErrorEnvelope", Type.Object({
  error: Type.Object({
    code: Type.Union(Object.keys(ERROR_CODES).map((c) => Type.Literal(c))),
    message: Type.String(),
    hint: Type.Optional(Type.String()),
    retryable: Type.Boolean(),
    violations: Type.Optional(Type.Array(ref(Violation))),
    requestId: Type.Optional(Type.String()),
  }),
}));

export const RecordSummary = component("RecordSummary", Type.Object(
  {
    record_id: Type.String({ pattern: "^rec_[0-9A-Za-z]{16}$" }),
    title: Type.String(),
    url: Type.Optional(Type.String()),
    snippet: Type.Optional(Type.String()),
  },
  {
    additionalProperties: true,
    description: "Extra keys are capability-specific: each capability's are published as RecordSummary.<capability id>.",
  },
));

export const NextStep = component("NextStep", Type.Object({
  url: Type.String(),
  actions: Type.Array(Type.String()),
  example: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
}));

export const ExecuteResponse = component("ExecuteResponse", Type.Object({
  search_id: Type.String({ pattern: "^srch_[0-9A-Za-z]{16}$" }),
  capability: Type.String(),
  results: Type.Array(ref(RecordSummary)),
  result_count: Type.Integer({ minimum: 0 }),
  has_more: Type.Boolean(),
  filters: Type.Optional(Type.Array(Type.Object({ id: Type.String(), label: Type.String(), group: Type.String() }))),
  next: ref(NextStep),
  record_actions: Type.Array(Type.String()),
  notes: Type.Optional(Type.Array(Type.String())),
  charged_credits: Type.Integer({ minimum: 0 }),
  balance: ref(Balance),
}));
export type ExecuteResponse = Static<typeof ExecuteResponse>;

export const Link = component("Link", Type.Object({ label: Type.String(), url: Type.String() }));

export const RecordFollowUpResponse = component("RecordFollowUpResponse", Type.Object({
  record_id: Type.String(),
  action: Type.String(),
  detail: Type.Unknown({ description: "Capability-specific object; untyped on the wire." }),
  links: Type.Array(ref(Link)),
  cached: Type.Optional(Type.Boolean()),
  charged_credits: Type.Integer({ minimum: 0 }),
  balance: ref(Balance),
}));
export type RecordFollowUpResponse = Static<typeof RecordFollowUpResponse>;

const Tier = (description?: string) =>
  Type.Union(
    TIERS.map((t) => Type.Literal(t)),
    description === undefined ? {} : { description },
  );
const Stage = (description?: string) =>
  Type.Union(
    STAGES.map((t) => Type.Literal(t)),
    description === undefined ? {} : { description },
  );
const PLAN_TIER = "The highest Sharpen tier the plan allows; a per-call stage above it is refused.";
const SERVED_STAGE =
  "The stage a Sharpen call without `stage` is served at: the saved setting capped at the plan's tier " +
  `(${STAGE_TIERS_TEXT}); \`stock\`: Sharpen is off.`;

export const CatalogResponse = component("CatalogResponse", Type.Object({
  capabilities: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      summary: Type.String(),
      topic: Type.String(),
      enabled: Type.Boolean(),
      available: Type.Boolean(),
      unavailable_reason: Type.Optional(Type.String()),
      typical_credits: Type.Integer({ minimum: 0 }),
      inspect_url: Type.String(),
    }),
  ),
  sharpen: Type.Object({
    tier: Tier(PLAN_TIER),
    stage: Type.Optional(Stage(SERVED_STAGE)),
    stages: Type.Optional(
      Type.Array(Type.Object({ stage: Stage(), tier: Tier() }), { description: "Each stage and the tier it stands for." }),
    ),
    url: Type.String(),
    typical_credits: Type.Integer({
      minimum: 0,
      description: "Credits of a call at `stage` (each stage's credits: GET /v1/guide).",
    }),
    enabled: Type.Boolean({ description: "Sharpen can be called with this key here now (plan, account and reviewers)." }),
  }),
  instructions: Type.String(),
}));
export type CatalogResponse = Static<typeof CatalogResponse>;

export const CapabilityInspectResponse = component("CapabilityInspectResponse", Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  available: Type.Boolean(),
  unavailable_reason: Type.Optional(Type.String()),
  execute: Type.Object({
    method: Type.Literal("POST"),
    url: Type.String(),
    body_schema: Type.Object({}, { additionalProperties: true }),
  }),
  follow_ups: Type.Array(
    Type.Object({
      action: Type.String(),
      scope: Type.Union([Type.Literal("search"), Type.Literal("record")]),
      description: Type.String(),
      params_schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  ),
  examples: Type.Array(Type.Object({ title: Type.String(), body: Type.Object({}, { additionalProperties: true }) })),
  cost: Type.Object({ typical_credits: Type.Integer({ minimum: 0 }), basis: Type.String() }),
}));
export type CapabilityInspectResponse = Static<typeof CapabilityInspectResponse>;

export const AccountResponse = component("AccountResponse", Type.Object({
  plan: Type.Object({ id: Type.String(), name: Type.String() }),
  status: Type.Union((["free", "active", "past_due", "canceled"] as const).map((s) => Type.Literal(s))),
  cadence: Type.Union([Type.Literal("monthly"), Type.Literal("annual"), Type.Null()]),
  credits: ref(Balance),
  sharpen_tier: Tier(PLAN_TIER),
  sharpen_stage: Type.Optional(Stage(SERVED_STAGE)),
  enabled_capabilities: Type.Array(Type.String()),
  key_budget: Type.Optional(
    Type.Object(
      {
        limit: Type.Integer({ minimum: 0, description: "Credits the key may spend per billing period." }),
        used: Type.Integer({ minimum: 0, description: "Credits the key has spent this period." }),
        period_end: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
          description: "When the key's use starts again from 0 (the account's period end); null on a plan granted once.",
        }),
      },
      {
        description:
          "Only when the caller is an API key with its own credit limit: a call that would take the key past it is refused 402 credits_exhausted, whatever the account's balance. Not sent otherwise (an OAuth token has no key limit).",
      },
    ),
  ),
}));
export type AccountResponse = Static<typeof AccountResponse>;

export const SharpenResponse = component("SharpenResponse", Type.Object({
  tier: Tier("The tier this call was served at."),
  stage: Type.Optional(Stage("The stage this call was served at.")),
  reviews: Type.Array(
    Type.Object({ reviewer: Type.Object({ family: Type.String(), model: Type.String() }), review: Type.String() }),
  ),
  partial: Type.Boolean(),
  routing_note: Type.Optional(Type.String()),
  instruction: Type.String(),
  charged_credits: Type.Integer({ minimum: 0 }),
  balance: ref(Balance),
}));
export type SharpenResponse = Static<typeof SharpenResponse>;

/**
 * `POST /v1/capabilities/{id}/execute` with `Quarry-Dry-Run: 1`: what the body would reserve (SearchService.dryRun).
 * Not spec-shaped: the spec has no dry run (docs/architecture.md, "Credits").
 */
export const DryRunResponse = component("DryRunResponse", Type.Object(
  {
    dry_run: Type.Literal(true),
    capability: Type.String(),
    reserved_credits: Type.Integer({ minimum: 0, description: "What an execute of this body would hold: the most it can cost." }),
    typical_credits: Type.Integer({ minimum: 0 }),
    cost_basis: Type.String(),
    fits: Type.Boolean({ description: "Whether the reservation fits the free credits now, and the calling key's own limit if it has one (for a free call: whether any are left)." }),
    balance: ref(Balance),
    key_budget: Type.Optional(
      Type.Object({ limit: Type.Integer({ minimum: 0 }), used: Type.Integer({ minimum: 0 }), period_end: Type.Union([Type.String(), Type.Null()]) }, { description: "The calling key's own limit and use this period (a key with a limit only)." }),
    ),
    notes: Type.Array(Type.String()),
  },
  { description: "Nothing was run, held or charged; no provider was called." },
));
export type DryRunResponse = Static<typeof DryRunResponse>;

export const Health = component("Health", Type.Object({
  status: Type.String(),
  checks: Type.Object({}, { additionalProperties: Type.String() }),
  version: Type.String(),
}));

/** The components of the OpenAPI document, in its order, each named by its `$id`. */
export const COMPONENTS: TSchema[] = [
  Balance,
  Violation,
  ErrorEnvelope,
  RecordSummary,
  NextStep,
  Link,
  ExecuteResponse,
  RecordFollowUpResponse,
  CatalogResponse,
  CapabilityInspectResponse,
  AccountResponse,
  SharpenResponse,
  DryRunResponse,
  Health,
];
