import { startCapabilityKit } from "../test/helpers/capability-kit.ts";
const k = await startCapabilityKit("patents.search");
const a = await k.execute({ query: "anti-inflammatory analgesic patch" });
console.log(a.status, JSON.stringify(a.body, null, 1).slice(0, 1800));
const d = await k.action(a.body.results[0].record_id, "details");
console.log(d.status, JSON.stringify(d.body, null, 1).slice(0, 3000));
console.log(k.h.replay.requests.map(r=>r.method+" "+r.path+" "+r.body+" "+r.matched+" "+r.headers["x-api-key"]).join("\n"));
await k.close();
