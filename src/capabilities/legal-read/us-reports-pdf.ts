/**
 * legal.read `us_reports`: a PDF of the United States Reports as sections, one a page (blank pages left
 * out), with `printed_page` only where the page itself shows the number its position implies. Pure;
 * runs on legal.read's worker threads (split-worker.ts).
 */
import { ApiError } from "../../errors.ts";
import { type Section, tidy } from "./sections.ts";

/** The first page of the decision in its volume, from the item id (usrep347483 → 483). */
function firstPage(itemId: string): number {
  return Number(itemId.slice(-3));
}

/** A page's printed number, when its first or last line shows the number its position implies. */
export function printedPage(pageText: string, expected: number): string | undefined {
  const lines = pageText.split("\n").map(tidy).filter((l) => l !== "");
  const ends = [lines[0], lines.at(-1)].filter((l): l is string => l !== undefined);
  const token = new RegExp(`(^|\\s)${expected}(\\s|$)`);
  return ends.some((l) => token.test(l)) ? String(expected) : undefined;
}

/** The PDF's pages as sections (blank pages left out, numbers kept). */
export async function pdfSections(bytes: Uint8Array, itemId: string): Promise<Section[]> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch (error) {
    throw new ApiError("provider_error", `The PDF of ${itemId} could not be read (${(error as Error).message}).`, {
      hint: "The Library of Congress answered with a file that is not a readable PDF; nothing was charged.",
    });
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    const first = firstPage(itemId);
    return text.flatMap((page, i) => {
      const body = page.split("\n").map(tidy).filter((l) => l !== "").join("\n");
      if (body === "") return [];
      const printed = printedPage(body, first + i);
      const title = `PDF page ${i + 1}${printed === undefined ? "" : ` (page ${printed})`}`;
      return [{ title, text: body, anchors: [], pdfPage: i + 1, ...(printed === undefined ? {} : { printedPage: printed }) }];
    });
  } finally {
    await pdf.destroy();
  }
}
