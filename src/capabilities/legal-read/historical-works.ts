/**
 * legal.read `historical`: the documented list of known historical works (spec 4.6: "an identifier
 * of a known historical work"), each with the public page its text is read from. Quarry holds no
 * text of any work: each is fetched from its source when read, through a provider of the table
 * (src/providers.ts; base URL variables in docs/providers.md):
 * - `avalon`: The Avalon Project, Lillian Goldman Law Library, Yale Law School — transcriptions of
 *   documents in law, history and diplomacy (`institutional_transcription`);
 * - `un`: the United Nations' own page of the Universal Declaration (`official_publication`);
 * - `gesetze`: Gesetze im Internet, the German Federal Ministry of Justice's publication of federal
 *   law and its English translations (`institutional_transcription`: a translation, not the
 *   authentic German text).
 * A `work_id` outside this list is refused by the schema at `/document/work_id`, naming the ids.
 */
import type { SourceClass } from "../shared/legal.ts";

export interface HistoricalWork {
  id: string;
  title: string;
  /** When the work was adopted or issued. */
  date: string;
  /** The language of the text read (an English translation where the original is not English). */
  language: string;
  provider: "avalon" | "un" | "gesetze";
  /** The page's path on the provider's host. */
  path: string;
  /** The page as people open it. */
  sourceUrl: string;
  publisher: string;
  sourceClass: SourceClass;
  /** The element holding the text on that page (CSS), when the page has site chrome around it. */
  root?: string;
}

const avalon = (id: string, title: string, date: string, path: string): HistoricalWork => ({
  id,
  title,
  date,
  language: "EN",
  provider: "avalon",
  path,
  sourceUrl: `https://avalon.law.yale.edu${path}`,
  publisher: "The Avalon Project, Lillian Goldman Law Library, Yale Law School",
  sourceClass: "institutional_transcription",
});

export const HISTORICAL_WORKS: readonly HistoricalWork[] = [
  avalon("magna_carta_1215", "Magna Carta (1215), English translation", "1215-06-15", "/medieval/magna.asp"),
  avalon("us_constitution", "The Constitution of the United States", "1787-09-17", "/18th_century/usconst.asp"),
  avalon("us_declaration_of_independence", "Declaration of Independence", "1776-07-04", "/18th_century/declare.asp"),
  avalon("articles_of_confederation", "Articles of Confederation", "1777-11-15", "/18th_century/artconf.asp"),
  avalon("english_bill_of_rights_1689", "English Bill of Rights (1689)", "1689-12-16", "/17th_century/england.asp"),
  avalon("declaration_rights_of_man_1789", "Declaration of the Rights of Man and of the Citizen (1789), English translation", "1789-08-26", "/18th_century/rightsof.asp"),
  avalon("un_charter", "Charter of the United Nations", "1945-06-26", "/20th_century/unchart.asp"),
  {
    id: "universal_declaration_of_human_rights",
    title: "Universal Declaration of Human Rights",
    date: "1948-12-10",
    language: "EN",
    provider: "un",
    path: "/en/about-us/universal-declaration-of-human-rights",
    sourceUrl: "https://www.un.org/en/about-us/universal-declaration-of-human-rights",
    publisher: "United Nations",
    sourceClass: "official_publication",
    root: "main",
  },
  {
    id: "basic_law_germany",
    title: "Basic Law for the Federal Republic of Germany, English translation",
    date: "1949-05-23",
    language: "EN",
    provider: "gesetze",
    path: "/englisch_gg/englisch_gg.html",
    sourceUrl: "https://www.gesetze-im-internet.de/englisch_gg/englisch_gg.html",
    publisher: "Federal Ministry of Justice (Gesetze im Internet)",
    sourceClass: "institutional_transcription",
  },
];

export const HISTORICAL_WORK_IDS = HISTORICAL_WORKS.map((w) => w.id) as [string, ...string[]];

export function historicalWork(id: string): HistoricalWork | undefined {
  return HISTORICAL_WORKS.find((w) => w.id === id);
}
