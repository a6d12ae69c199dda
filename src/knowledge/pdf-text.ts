import { startInflationBudget } from './bounded-decompression.ts';
import { ExtractionFailure } from './extraction-failure.ts';
import type { ExtractionLimits } from './extraction-limits.ts';

type TextItem = { str?: string; hasEOL?: boolean };

/**
 * A PDF's text layer, page by page, streamed so that extraction stops as soon as the
 * text passes its limit instead of after the whole document is held in memory. Runs in
 * the extraction thread (bounded-decompression.ts is installed there).
 */
export async function pdfText(fileName: string, content: Uint8Array, limits: ExtractionLimits): Promise<{ text: string; title?: string }> {
  // Loaded on demand: pdf.js is large and most deployments have no PDFs.
  const { getDocumentProxy, getMeta } = await import('unpdf');
  const budget = startInflationBudget(limits.maxInflatedStreamBytes);
  const inflatedTooFar = () => new ExtractionFailure('inflates_too_large', `'${fileName}' holds a compressed stream that inflates past ${Math.round(limits.maxInflatedStreamBytes / 1024 / 1024)} MB.`);
  // Verbosity 0 (errors only): pdf.js's warnings about a damaged file would go to the server's output, outside its log.
  const pdf = await getDocumentProxy(new Uint8Array(content), { verbosity: 0 }).catch((error: unknown) => {
    throw unreadable(fileName, error);
  });
  try {
    const pages: string[] = [];
    let length = 0;
    for (let number = 1; number <= pdf.numPages; number += 1) {
      const page = await pdf.getPage(number).catch((error: unknown) => {
        throw unreadable(fileName, error);
      });
      const reader = page.streamTextContent().getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read().catch((error: unknown) => {
          throw budget.exceeded ? inflatedTooFar() : unreadable(fileName, error);
        });
        if (budget.exceeded) {
          await reader.cancel(new Error('inflation limit')).catch(() => undefined);
          throw inflatedTooFar();
        }
        if (done) break;
        for (const item of value.items as TextItem[]) if (item.str != null) text += item.str + (item.hasEOL ? '\n' : '');
        if (length + text.length > limits.maxTextChars) {
          await reader.cancel(new Error('text limit')).catch(() => undefined);
          throw textTooLarge(fileName, limits);
        }
      }
      page.cleanup();
      pages.push(text);
      length += text.length + 1;
    }
    const { info } = await getMeta(pdf);
    const title: unknown = info.Title;
    return { text: normalizeMergedText(pages), ...(typeof title === 'string' && title.trim() !== '' ? { title: title.trim() } : {}) };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

/** As unpdf's `extractText(…, { mergePages: true })`: pages on their own lines, runs of spaces as one. */
function normalizeMergedText(pages: string[]): string {
  return pages
    .join('\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n');
}

export function textTooLarge(fileName: string, limits: ExtractionLimits): ExtractionFailure {
  return new ExtractionFailure('text_too_large', `'${fileName}' holds more than ${limits.maxTextChars.toLocaleString('en-US')} characters of text.`);
}

function unreadable(fileName: string, error: unknown): ExtractionFailure {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') return new ExtractionFailure('encrypted', `'${fileName}' is a password-protected PDF; upload it without a password.`);
  const reason = error instanceof Error ? error.message : String(error);
  return new ExtractionFailure('unreadable', `'${fileName}' is not a readable PDF (${reason.slice(0, 200)}).`);
}
