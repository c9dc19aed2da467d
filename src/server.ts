/** `npm start`: run Quarry on HOST:PORT with the configured store; print a key on first start. */
import { startQuarry } from "./runtime.ts";

const quarry = await startQuarry();
const { url, firstKey } = quarry;
process.stdout.write(`Quarry listening on ${url} (store: ${quarry.store.kind})\n`);
if (firstKey) {
  process.stdout.write(
    [
      "",
      "First start with an empty store: created a local account on the free plan.",
      `Its API key (shown only this once): ${firstKey}`,
      "",
      "Try it:",
      `  curl -s ${url}/v1/catalog -H "Authorization: Bearer ${firstKey}"`,
      "",
    ].join("\n"),
  );
}
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    quarry.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
