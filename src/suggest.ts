/**
 * "Did you mean": the one accepted name closest to a name an agent sent that was refused (an
 * unknown field, enum value or follow-up action). An agent that reads `(did you mean "query"?)`
 * corrects itself in one step instead of rereading the schema. Only a clear match is suggested:
 * the same name but for case and separators, a name agents commonly use for that field (`limit`
 * for `num`), or a near miss by typing (at most one edit for short names, two for longer ones;
 * letters swapped count as one). A tie between two candidates suggests nothing.
 */

/** Names agents send for a field or action that Quarry calls otherwise; suggested only where that name is accepted. */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  q: "query",
  search: "query",
  keyword: "query",
  keywords: "query",
  term: "query",
  terms: "query",
  text: "query",
  prompt: "query",
  limit: "num",
  count: "num",
  maxresults: "num",
  perpage: "num",
  pagesize: "num",
  size: "num",
  n: "num",
  topk: "num",
  number: "num",
  ticker: "symbol",
  lang: "language",
  locale: "language",
  hl: "language",
  gl: "country",
  countrycode: "country",
  // Follow-up actions.
  next: "more",
  nextpage: "more",
  page: "more",
  detail: "details",
  get: "details",
};

/** Lower case, with `_`, `-`, spaces and dots taken out: `Max_Results` and `maxResults` compare equal. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, "");
}

/** Edit distance with adjacent transpositions counted as one edit (optimal string alignment); stops past `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    current[0] = i;
    let rowBest = current[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowBest) rowBest = d;
    }
    if (rowBest > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** How many edits a name of this length may be from its suggestion. */
function allowedEdits(length: number): number {
  if (length <= 2) return 0;
  if (length <= 4) return 1;
  return 2;
}

/** The one accepted name `sent` most likely meant, or undefined when none is a clear match. */
export function closestName(sent: string, accepted: readonly string[]): string | undefined {
  if (accepted.length === 0 || sent.length === 0 || sent.length > 64) return undefined;
  const key = folded(sent);
  const sameButCase = accepted.filter((name) => folded(name) === key);
  if (sameButCase.length === 1) return sameButCase[0];
  if (sameButCase.length > 1) return undefined;
  const alias = Object.hasOwn(FIELD_ALIASES, key) ? FIELD_ALIASES[key] : undefined;
  if (alias !== undefined && accepted.includes(alias)) return alias;
  const limit = allowedEdits(key.length);
  if (limit === 0) return undefined;
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tied = false;
  for (const name of accepted) {
    const d = editDistance(key, folded(name), limit);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
      tied = false;
    } else if (d === bestDistance && d <= limit) {
      tied = true;
    }
  }
  return bestDistance <= limit && !tied ? best : undefined;
}

/** ` (did you mean "x"?)` for a refused name with a clear match among `accepted`, else "". */
export function didYouMean(sent: string, accepted: readonly string[]): string {
  const match = closestName(sent, accepted);
  return match === undefined || match === sent ? "" : ` (did you mean "${match}"?)`;
}
