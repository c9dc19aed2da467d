/** `npm start`: run Quarry on HOST:PORT with the configured store; print a key on first start. */
import { startQuarry } from "./runtime.ts";

const quarry = await startQuarry();
const { url, firstKey } = quarry;
// One write, so whoever reads the output sees the whole first-start block at once.
const lines = [`Quarry listening on ${url} (store: ${quarry.store.kind})`];
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
}
process.stdout.write(lines.join("\n") + "\n");
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    quarry.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
