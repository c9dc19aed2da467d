/**
 * legal.search `us` `courts`: which CourtListener courts `federal` and `state` mean. CourtListener
 * filters a search by court with its `court` parameter, a space-separated list of its court ids (as
 * its search page sends them); it has no "all federal" shortcut. Its court table groups courts by
 * jurisdiction code, and these lists are the ids of those groups:
 * - `federal`: the Supreme Court and the courts of appeals (code F), the district courts (FD), the
 *   bankruptcy courts and bankruptcy appellate panels (FB, FBP) and the federal special courts (FS:
 *   Federal Claims, International Trade, Veterans Claims, Armed Forces, Tax Court…), current ones
 *   plus the predecessors CourtListener holds opinions of (Court of Claims, Customs and Patent Appeals).
 * - `state`: each state's (and D.C.'s) court of last resort (S) and intermediate appellate courts (SA).
 *   State trial and special courts (ST, SS; over 2,000 of them) are left out: they would not fit a URL.
 * `all` sends no court filter. Ids follow CourtListener's court table (`/api/rest/v4/courts/`); an id
 * it does not use matches nothing there, so a stale entry narrows nothing else.
 */

const DISTRICTS = [
  "almd", "alnd", "alsd", "akd", "azd", "ared", "arwd", "cacd", "caed", "cand", "casd", "cod", "ctd", "ded", "dcd",
  "flmd", "flnd", "flsd", "gamd", "gand", "gasd", "hid", "idd", "ilcd", "ilnd", "ilsd", "innd", "insd", "iand", "iasd",
  "ksd", "kyed", "kywd", "laed", "lamd", "lawd", "med", "mdd", "mad", "mied", "miwd", "mnd", "msnd", "mssd", "moed",
  "mowd", "mtd", "ned", "nvd", "nhd", "njd", "nmd", "nyed", "nynd", "nysd", "nywd", "nced", "ncmd", "ncwd", "ndd",
  "ohnd", "ohsd", "oked", "oknd", "okwd", "ord", "paed", "pamd", "pawd", "rid", "scd", "sdd", "tned", "tnmd", "tnwd",
  "txed", "txnd", "txsd", "txwd", "utd", "vtd", "vaed", "vawd", "waed", "wawd", "wvnd", "wvsd", "wied", "wiwd", "wyd",
  "gud", "nmid", "prd", "vid",
];

const BANKRUPTCY = [
  "almb", "alnb", "alsb", "akb", "arb", "areb", "arwb", "cacb", "caeb", "canb", "casb", "cob", "ctb", "deb", "dcb",
  "flmb", "flnb", "flsb", "gamb", "ganb", "gasb", "hib", "idb", "ilcb", "ilnb", "ilsb", "innb", "insb", "ianb", "iasb",
  "ksb", "kyeb", "kywb", "laeb", "lamb", "lawb", "meb", "mdb", "mab", "mieb", "miwb", "mnb", "msnb", "mssb", "moeb",
  "mowb", "mtb", "nebraskab", "nvb", "nhb", "njb", "nmb", "nyeb", "nynb", "nysb", "nywb", "nceb", "ncmb", "ncwb", "ndb",
  "ohnb", "ohsb", "okeb", "oknb", "okwb", "orb", "paeb", "pamb", "pawb", "rib", "scb", "sdb", "tneb", "tnmb", "tnwb",
  "txeb", "txnb", "txsb", "txwb", "utb", "vtb", "vaeb", "vawb", "waeb", "wawb", "wvnb", "wvsb", "wieb", "wiwb", "wyb",
  "gub", "nmib", "prb", "vib",
  "bap1", "bap2", "bap6", "bap8", "bap9", "bap10", "bapma", "bapme",
];

const FEDERAL_APPELLATE = ["scotus", "ca1", "ca2", "ca3", "ca4", "ca5", "ca6", "ca7", "ca8", "ca9", "ca10", "ca11", "cadc", "cafc"];

const FEDERAL_SPECIAL = ["uscfc", "cit", "cavc", "armfor", "tax", "jpml", "cc", "ccpa", "cusc", "acca", "afcca", "nmcca", "asbca", "bva"];

const STATE_SUPREME = [
  "ala", "alaska", "ariz", "ark", "cal", "colo", "conn", "del", "dc", "fla", "ga", "haw", "idaho", "ill", "ind", "iowa",
  "kan", "ky", "la", "me", "md", "mass", "mich", "minn", "miss", "mo", "mont", "neb", "nev", "nh", "nj", "nm", "ny",
  "nc", "nd", "ohio", "okla", "or", "pa", "ri", "sc", "sd", "tenn", "tex", "texcrimapp", "utah", "vt", "va", "wash",
  "wva", "wis", "wyo",
];

const STATE_APPELLATE = [
  "alacivapp", "alacrimapp", "alactapp", "alaskactapp", "arizctapp", "arkctapp", "calctapp", "calappdeptsuper",
  "coloctapp", "connappct", "fladistctapp", "gactapp", "hawapp", "idahoctapp", "illappct", "indctapp", "iowactapp",
  "kanctapp", "kyctapp", "lactapp", "mdctspecapp", "massappct", "michctapp", "minnctapp", "missctapp", "moctapp",
  "nebctapp", "nevapp", "njsuperctappdiv", "nmctapp", "nyappdiv", "nyappterm", "ncctapp", "ndctapp", "ohioctapp",
  "oklacivapp", "oklacrimapp", "orctapp", "pasuperct", "pacommwct", "scctapp", "tennctapp", "tenncrimapp", "texapp",
  "utahctapp", "vactapp", "washctapp", "wisctapp",
];

export const COURT_GROUPS = {
  federal: [...FEDERAL_APPELLATE, ...DISTRICTS, ...BANKRUPTCY, ...FEDERAL_SPECIAL],
  state: [...STATE_SUPREME, ...STATE_APPELLATE],
} as const;

/** The `court` parameter for `courts` (none for `all`). */
export function courtParam(courts: "all" | "federal" | "state"): string | undefined {
  return courts === "all" ? undefined : COURT_GROUPS[courts].join(" ");
}
