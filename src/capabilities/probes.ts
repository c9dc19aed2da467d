/**
 * Every provider's live probe (src/upstream/probe.ts), declared beside its adapter and gathered here
 * for `quarry providers check` (src/cli/providers-check.ts). The table is keyed by provider id and
 * checked by the compiler against the provider table: a provider without a probe does not compile.
 */
import type { ProviderProbe } from "../upstream/probe.ts";
import type { ProviderId } from "../providers.ts";
import { openAlexProbe } from "./academic-search/openalex.ts";
import { deezerProbe } from "./music-search/deezer.ts";
import { musicBrainzProbe } from "./music-search/musicbrainz.ts";
import { bibleApiProbe } from "./scripture-search/bibleapi.ts";
import { quranProbe } from "./scripture-search/quran.ts";
import { jinaProbe } from "../reader/jina.ts";
import { secProbe } from "./companies-financials/edgar.ts";
import { nominatimProbe } from "./shared/nominatim.ts";
import { orsProbe } from "./shared/ors.ts";
import { osrmProbe } from "./shared/osrm.ts";
import { openMeteoProbe } from "./weather-forecast/openmeteo.ts";
import { serperProbe } from "./shared/serper.ts";
import { redditProbe } from "./social-search/reddit.ts";
import { twitterApiProbe } from "./social-search/twitterapi.ts";
import { financeProbe } from "./markets-quote/serpapi-finance.ts";
import { courtListenerProbe } from "./shared/courtlistener.ts";
import { euPublicationsProbe } from "./legal-search/cellar.ts";
import { locProbe } from "./legal-read/us-reports.ts";
import { avalonProbe, gesetzeProbe, unProbe } from "./legal-read/historical.ts";
import { eurLexProbe } from "./legal-read/eu-official.ts";
import { githubProbe } from "./codehost-search/github.ts";
import { openLibraryProbe } from "./books-search/openlibrary.ts";
import { gutendexProbe } from "./classics-search/gutendex.ts";
import { wikisourceProbe } from "./classics-search/wikisource.ts";
import { gutenbergProbe } from "./classics-search/gutenberg.ts";
import { themealdbProbe } from "./recipes-search/themealdb.ts";
import { wgerProbe } from "./fitness-exercises/wger.ts";
import { zillowProbe } from "./realestate-search/zillow-search.ts";
import { youtubeProbe } from "./video-search/youtube-data.ts";
import { youtubeWebProbe } from "./video-search/youtube-transcript.ts";

export const PROBES: Record<ProviderId, ProviderProbe> = {
  openalex: openAlexProbe,
  deezer: deezerProbe,
  musicbrainz: musicBrainzProbe,
  bibleapi: bibleApiProbe,
  quran: quranProbe,
  jina: jinaProbe,
  ors: orsProbe,
  osrm: osrmProbe,
  nominatim: nominatimProbe,
  openmeteo: openMeteoProbe,
  sec: secProbe,
  youtube: youtubeProbe,
  youtube_web: youtubeWebProbe,
  reddit: redditProbe,
  twitterapi: twitterApiProbe,
  serper: serperProbe,
  serpapi: financeProbe,
  courtlistener: courtListenerProbe,
  eu_publications: euPublicationsProbe,
  eurlex: eurLexProbe,
  loc: locProbe,
  avalon: avalonProbe,
  un: unProbe,
  gesetze: gesetzeProbe,
  github: githubProbe,
  openlibrary: openLibraryProbe,
  gutendex: gutendexProbe,
  wikisource: wikisourceProbe,
  gutenberg: gutenbergProbe,
  themealdb: themealdbProbe,
  wger: wgerProbe,
  realestate: zillowProbe,
};
