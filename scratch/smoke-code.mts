import { startCapabilityKit } from "../test/helpers/capability-kit.ts";
const k = await startCapabilityKit("codehost.search");
for (const body of [{ query: "pygithub" }, { query: "sesame repo:octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli", kind: "issues" }, { query: "toto user:jacquev6", kind: "code", num: 30 }, {query: "github language:Python", sort: "stars"}]) {
  const a = await k.execute(body);
  console.log(a.status, a.body.has_more, a.body.notes, JSON.stringify(a.body.results?.slice(0,2), null, 1)?.slice(0, 1500));
  if (a.status === 200) { const d = await k.action(a.body.results[0].record_id, "details"); console.log(d.status, JSON.stringify(d.body).slice(0, 1500)); }
}
console.log(k.h.replay.requests.map(r=>r.path+"?"+r.rawQuery+" "+r.matched).join("\n"));
await k.close();
