/** `npm start`: run Quarry on HOST:PORT with the configured store; print a key on first start. */
import { loadDotEnv } from "./env-file.ts";
import { ApiError } from "./errors.ts";
import { startQuarry } from "./runtime.ts";
import { InstanceLockedError } from "./store/sqlite/connection.ts";

// A `.env` in the working directory, under what the environment already sets (env-file.ts).
const dotEnv = loadDotEnv();
const quarry = await startQuarry().catch((error: unknown) => {
  // A dependency that is not there at start (database down, data file not writable, another
  // server on the data file): one clear line and exit 1 instead of a dump of the error object.
  // Anything else keeps its stack.
  const portTaken = (error as { code?: unknown }).code === "EADDRINUSE";
  if (!(error instanceof ApiError || error instanceof InstanceLockedError || portTaken)) throw error;
  const cause = error instanceof ApiError && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  const hint = portTaken ? " (set PORT to a free port, or PORT=0 for any)" : "";
  process.stderr.write(`Quarry could not start: ${(error as Error).message}${cause}${hint}\n`);
  process.exit(1);
});
// Signal handlers first: whoever reads "listening" below may send SIGTERM at once.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    quarry.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
const { url, firstKey } = quarry;
// One write, so whoever reads the output sees the whole first-start block at once.
const lines = [`Quarry listening on ${url} (store: ${quarry.store.kind}${dotEnv ? ", settings from .env too" : ""})`];
if (firstKey) {
  lines.push(
    "",
    "First start with an empty store: created a local account on the free plan.",
    `Its API key (shown only this once): ${firstKey}`,
    "",
    "Try it:",
    `  curl -s ${url}/v1/catalog -H "Authorization: Bearer ${firstKey}"`,
    "",
  );
} else {
  // Keys are stored hashed: the one printed at the first start cannot be shown again.
  const accounts = await quarry.store.listAccounts();
  const only = accounts.length === 1 ? accounts[0]!.id : "<account-id>";
  lines.push(
    `The store has ${accounts.length} account${accounts.length === 1 ? "" : "s"}; a key is shown only when it is created. For a new one:`,
    `  npm run cli -- keys create ${only}${accounts.length === 1 ? "" : "      (ids: npm run cli -- accounts list)"}`,
  );
}
// People manage their keys and usage in the dashboard, once the operator has given them a sign-in.
lines.push(`Dashboard: ${url}/dashboard (a sign-in for a person: npm run cli -- logins create <account-id> <email>)`);
process.stdout.write(lines.join("\n") + "\n");
