/**
 * The dashboard's form posts (application/x-www-form-urlencoded), as the OpenAPI document publishes
 * them (src/http/openapi.ts) and the fuzzer reads them. Every one carries `_csrf`, the token of the
 * page that holds the form (@fastify/csrf-protection): without the session's token a post is 403
 * and changes nothing. Fields not listed are ignored.
 */
import { Type } from "@sinclair/typebox";

const csrf = Type.String({ description: "The CSRF token of the page the form is on." });
const form = (properties: Parameters<typeof Type.Object>[0], description: string) =>
  Type.Object({ _csrf: csrf, ...properties }, { additionalProperties: true, description });

export const DASHBOARD_FORMS = {
  "/dashboard/sign-in": Type.Object(
    {
      _csrf: csrf,
      email: Type.String({ maxLength: 254 }),
      password: Type.String({ maxLength: 256 }),
      next: Type.Optional(Type.String({ description: "A dashboard path to go to after signing in." })),
    },
    { additionalProperties: true, description: "Sign in (rate limited per email and per client address)." },
  ),
  "/dashboard/sign-out": form({}, "Sign out: the session ends."),
  "/dashboard/keys": form(
    {
      name: Type.String({ minLength: 1, maxLength: 100 }),
      limit: Type.Optional(
        Type.String({ pattern: "^[0-9]{0,13}$", description: "The key's own credit limit per billing period; empty: no limit." }),
      ),
    },
    "Create an API key, optionally with its own credit limit per period; the answer is the only page that shows it.",
  ),
  "/dashboard/keys/{id}/revoke": form({}, "Revoke one of the account's keys."),
  "/dashboard/keys/{id}/limit": form(
    {
      limit: Type.String({
        pattern: "^(?:[0-9]{0,13}|none)$",
        description: "Credits the key may spend per billing period; empty or `none`: no limit of its own (the account's cap still applies).",
      }),
    },
    "Set or remove one of the account's keys' own credit limit per period.",
  ),
  "/dashboard/apps/{id}/revoke": form({}, "Disconnect one of the account's OAuth apps (its tokens stop working)."),
  "/dashboard/sharpen-stage": form(
    { stage: Type.String({ description: "`default`, `stock`, or a stage up to the plan's Sharpen tier." }) },
    "Save the Sharpen stage.",
  ),
  "/dashboard/authorize": form(
    { decision: Type.Union([Type.Literal("approve"), Type.Literal("deny")]) },
    "Answer the MCP host's authorization request waiting in the session.",
  ),
} as const;

/** The dashboard's pages (GET, text/html). */
export const DASHBOARD_PAGES: Record<string, string> = {
  "/dashboard": "Overview: plan, status, credits with the period's end, Sharpen tier and saved stage.",
  "/dashboard/sign-in": "The sign-in form.",
  "/dashboard/keys": "API keys (name, prefix, limit with its use this period, created, last used) and connected OAuth apps.",
  "/dashboard/usage": "This period's calls and credits by day (chart and table) and by capability, and the latest calls.",
  "/dashboard/authorize": "The consent page of an MCP host's OAuth request.",
};
