/**
 * REST routes of spec 4.2–4.8: each parses, calls its service and returns its JSON. GET /v1/account
 * (registerAccountRoute) is registered in the dashboard's session scope, since it also takes a session.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Services } from "../services.ts";
import { bearerKey, publicBase, withChallenge } from "./auth.ts";
import { originOf } from "./origin.ts";

type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function registerV1Routes(app: FastifyInstance, services: Services, auth: AuthHook): void {
  app.get("/v1/catalog", { onRequest: auth }, async (request) => services.catalog.catalog(request.caller!));

  app.get<{ Params: { id: string } }>("/v1/capabilities/:id", { onRequest: auth }, async (request) =>
    services.catalog.inspect(request.params.id),
  );

  // `Quarry-Dry-Run: 1`: the reservation the body would make, nothing run or charged (docs/architecture.md, "Credits").
  app.post<{ Params: { id: string } }>("/v1/capabilities/:id/execute", { onRequest: auth }, async (request) =>
    request.headers["quarry-dry-run"] === "1"
      ? services.search.dryRun(request.caller!, request.params.id, request.body)
      : services.search.execute(request.caller!, request.params.id, request.body, originOf(request)),
  );

  app.post("/v1/follow-up", { onRequest: auth }, async (request) =>
    services.search.followUp(request.caller!, request.body, originOf(request)),
  );

  app.post("/v1/sharpen", { onRequest: auth }, async (request) =>
    services.sharpen.review(request.caller!, request.body, originOf(request)),
  );
}

/**
 * GET /v1/account (spec 4.7, 5.5): an API key, an OAuth token, or a signed-in dashboard session, the
 * one route that takes all three. A session is read by the session plugins, which only the dashboard's
 * scope has (no other route pays for them), so app.ts has registerPeopleRoutes (src/dashboard/routes.ts)
 * register this route in that scope, `signedIn` telling the account of the request's signed-in person
 * (null: none). A request with an Authorization header is the header's, whatever its session.
 */
export function registerAccountRoute(
  scope: FastifyInstance,
  services: Services,
  signedIn: (request: FastifyRequest) => Promise<string | null>,
): void {
  scope.get(
    "/v1/account",
    {
      onRequest: async (request, reply) => {
        const header = request.headers.authorization;
        try {
          const accountId = header === undefined ? await signedIn(request) : null;
          request.caller =
            accountId === null
              ? await services.authenticate(bearerKey(header), reply)
              : await services.authenticate.count(await services.accounts.sessionCaller(accountId), reply);
        } catch (error) {
          throw withChallenge(error, publicBase(services.config, request), header !== undefined);
        }
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return services.account(request.caller!);
    },
  );
}
