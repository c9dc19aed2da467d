/** REST routes of spec 4.2–4.8 (but GET /v1/account: src/dashboard/routes.ts): each parses, calls its service and returns its JSON. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Services } from "../services.ts";
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

  // GET /v1/account also takes a dashboard session: it is served with the dashboard (src/dashboard/routes.ts).
}
