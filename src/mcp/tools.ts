/**
 * The six MCP tools of spec 4.9. Each calls the same service method as its REST route and answers
 * the same JSON twice (structuredContent and one text block); a failure answers `isError: true`
 * with the spec error envelope, so an agent sees the same code and `retryable` as over REST.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { type TSchema, Type } from "@sinclair/typebox";
import type { FastifyBaseLogger } from "fastify";
import type { Caller } from "../accounts/accounts.ts";
import type { Services } from "../services.ts";
import { ApiError, type CallOrigin, ClientGone, type ErrorEnvelope, invalidRequest, violationsUnder } from "../errors.ts";
import { logFailure, toApiError } from "../http/error-handler.ts";
import { FollowUpRequestSchema } from "../search/follow-up-schema.ts";
import { SharpenRequestSchema } from "../sharpen/schema.ts";
import { didYouMean } from "../suggest.ts";
import { validate } from "../validation.ts";
import { fitResult } from "./fit.ts";

export interface ToolContext {
  caller: Caller;
  /**
   * The HTTP request's id (it goes into the ledger and every error envelope, as over REST) and
   * whether its connection is still open.
   */
  origin: CallOrigin;
  log: FastifyBaseLogger;
}

type Args = Record<string, unknown>;

interface ToolDef {
  tool: Tool;
  /** The TypeBox schema itself: validate() caches its compiled form per schema object. */
  schema: TSchema;
  /** Validate the arguments here; false where the service validates the body itself (like REST). */
  checkArgs: boolean;
  run(services: Services, ctx: ToolContext, args: Args): Promise<unknown>;
}

const NoArgs = Type.Object({}, { additionalProperties: false });

const InspectArgs = Type.Object(
  {
    id: Type.String({ minLength: 1, description: "A capability id from discover, e.g. `music.search`." }),
    params: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            "Optional: an execute body to price without running it. The answer then adds `dry_run` with the credits execute would reserve (its most) and whether they fit the balance; nothing is run or charged.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const ExecuteArgs = Type.Object(
  {
    capability: Type.String({
      minLength: 1,
      description: "A capability id from discover, e.g. `music.search`.",
    }),
    params: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "The request body: the fields of inspect's request schema.",
      },
    ),
  },
  { additionalProperties: false },
);

/** JSON Schema as sent in tools/list: TypeBox's symbol keys do not survive JSON, so copy through it. */
function inputSchema(schema: TSchema): Tool["inputSchema"] {
  return JSON.parse(JSON.stringify(schema)) as Tool["inputSchema"];
}

function define(
  name: string,
  schema: TSchema,
  checkArgs: boolean,
  meta: Omit<Tool, "name" | "inputSchema">,
  run: ToolDef["run"],
): ToolDef {
  return { tool: { name, ...meta, inputSchema: inputSchema(schema) }, schema, checkArgs, run };
}

const TOOL_DEFS: ToolDef[] = [
  define(
    "discover",
    NoArgs,
    true,
    {
      title: "Discover capabilities",
      description:
        "List Quarry's search capabilities with whether each is enabled for this key and available here, " +
        "typical credits, and the Sharpen entitlement. Start here, then inspect a capability. Free.",
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (services, ctx) => services.catalog.catalog(ctx.caller),
  ),
  define(
    "inspect",
    InspectArgs,
    true,
    {
      title: "Inspect a capability",
      description:
        "One capability's request schema (the `params` of execute), follow-up and record actions, examples " +
        "and cost. Read it before the first execute of a capability. With `params`, also what that execute would " +
        "reserve (its most credits), without running it. Free.",
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (services, ctx, args) => {
      const inspected = services.catalog.inspect(args.id as string);
      if (args.params === undefined) return inspected;
      const dryRun = await services.search.dryRun(ctx.caller, args.id as string, args.params).catch((err) => {
        throw violationsUnder(err, "/params");
      });
      return { ...inspected, dry_run: dryRun };
    },
  ),
  define(
    "execute",
    ExecuteArgs,
    true,
    {
      title: "Run a capability",
      description:
        "Run a search capability with typed params (see inspect). Returns results with record_ids, a " +
        "search_id for follow_up, charged_credits and balance. Each call is a new search, charged as the " +
        "capability's cost says (typical_credits in discover and inspect; many are free).",
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (services, ctx, args) =>
      services.search
        .execute(ctx.caller, args.capability as string, args.params, ctx.origin)
        .catch((err) => {
          throw violationsUnder(err, "/params");
        }),
  ),
  define(
    "follow_up",
    FollowUpRequestSchema,
    false,
    {
      title: "Follow up on a search or record",
      description:
        "Continue a search: with search_id, `more` (next page) or `update` (the params given change the " +
        "stored query, paging reset; see inspect for each capability's rule); with record_id, a record " +
        "action such as `details`. Give exactly one of search_id or record_id. `update` runs the search " +
        "again and is charged as execute is; `more` and record actions are charged as inspect's cost says " +
        "(free for a page of stored results and for a repeated record action).",
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (services, ctx, args) => services.search.followUp(ctx.caller, args, ctx.origin),
  ),
  define(
    "sharpen",
    SharpenRequestSchema,
    false,
    {
      title: "Second opinion on a draft",
      description:
        "Have a model of a different family review a draft answer: it first attempts the task blind, then " +
        "critiques the draft against its own attempt. Costs credits by stage; the guide lists them with the " +
        "models each caller_provider family stands for (the resource quarry://guide over MCP, GET /v1/guide over " +
        "REST: \"Sharpen in this deployment\"); needs Sharpen enabled (see discover).",
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (services, ctx, args) => services.sharpen.review(ctx.caller, args, ctx.origin),
  ),
  define(
    "account",
    NoArgs,
    true,
    {
      title: "Account and balance",
      description: "This key's account: plan, credit balance (used, cap, period end) and Sharpen tier. Free.",
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (services, ctx) => services.account(ctx.caller),
  ),
];

const BY_NAME = new Map(TOOL_DEFS.map((d) => [d.tool.name, d]));

/** The tools/list answer; the same for every caller (availability is what discover reports). */
export const TOOLS: Tool[] = TOOL_DEFS.map((d) => d.tool);

/** Orientation sent in the initialize result. */
export const INSTRUCTIONS =
  "Quarry gives typed, stateful search capabilities. Call discover, inspect {id} for the request schema, " +
  "execute {capability, params}, then follow_up with the search_id (`more`, `update`) or a record_id " +
  "(`details` and other record actions). Results carry charged_credits and balance; refused and failed " +
  "calls cost nothing and answer isError with {error:{code, message, hint?, retryable, violations?}}. " +
  "Search sessions live 24 hours after their last use.";

export function toolResult(value: unknown, text = JSON.stringify(value)): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A tool's answer as a result that fits the host (fit.ts): serialized once when it fits, as nearly every answer does. */
function fittedResult(value: unknown, maxChars: number): CallToolResult {
  const text = JSON.stringify(value);
  if (text.length <= maxChars) return toolResult(value, text);
  return toolResult(fitResult(value, maxChars, text.length));
}

export function toolError(envelope: ErrorEnvelope): CallToolResult {
  return { ...toolResult(envelope), isError: true };
}

/** Run one tools/call; never throws: every failure becomes a tool error with the envelope. */
export async function callTool(
  services: Services,
  ctx: ToolContext,
  name: string,
  args: Args | undefined,
): Promise<CallToolResult> {
  try {
    const def = BY_NAME.get(name);
    if (!def) {
      throw new ApiError("not_found", `No tool "${name}"${didYouMean(name, TOOLS.map((t) => t.name))}.`, {
        hint: `Tools: ${TOOLS.map((t) => t.name).join(", ")}.`,
      });
    }
    const body = args ?? {};
    if (def.checkArgs) {
      const violations = validate(def.schema, body);
      if (violations.length > 0) throw invalidRequest(violations);
    }
    return fittedResult(await def.run(services, ctx, body), services.config.mcp.maxResultChars);
  } catch (err) {
    if (err instanceof ClientGone) {
      // Nobody will read the result: logged, and answered only so the transport can finish.
      ctx.log.info({ tool: name, cause: err.cause }, err.message);
      return toolError(new ApiError("service_unavailable", err.message).toEnvelope(ctx.origin.requestId));
    }
    const api = toApiError(err);
    // Same rule as the REST error handler (logFailure).
    logFailure(ctx.log, api, { tool: name });
    return toolError(api.toEnvelope(ctx.origin.requestId));
  }
}
