// The worker entry of bench/xbrl.ts's load thread. A CommonJS file that requires the TypeScript, as
// piscina's own worker entry does: under tsx a worker's require() is compiled, its import() is not.
require("./xbrl-load.ts");
