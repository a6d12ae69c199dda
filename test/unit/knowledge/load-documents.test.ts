import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentExtractor } from '../../../src/knowledge/document-extractor.ts';
import { extractDocumentText } from '../../../src/knowledge/document-text.ts';
import { DEFAULT_EXTRACTION_LIMITS } from '../../../src/knowledge/extraction-limits.ts';
import { htmlToText } from '../../../src/knowledge/html-document.ts';
import { listCollections, loadCollection } from '../../../src/knowledge/load-documents.ts';

let root: string;
const extractor = new DocumentExtractor();
const loadDocument = (path: string, content: Uint8Array) => extractDocumentText(path, content, DEFAULT_EXTRACTION_LIMITS);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'junction-knowledge-'));
  await mkdir(join(root, 'guides', 'nested'), { recursive: true });
  await mkdir(join(root, '.hidden'));
  await writeFile(join(root, 'guides', 'intro.md'), '---\ntitle: "Getting started"\nowner: docs\n---\n# Welcome\n\nHello there.\n');
  await writeFile(join(root, 'guides', 'nested', 'faq.txt'), 'Frequently asked\n\nQuestions and answers.');
  await writeFile(join(root, 'guides', 'page.html'), '<html><head><title>Page &amp; more</title></head><body><h1>Top</h1><p>Body</p></body></html>');
  await writeFile(join(root, 'guides', 'empty.md'), '   \n');
  await writeFile(join(root, 'guides', 'image.png'), 'not text');
  await writeFile(join(root, 'guides', '.draft.md'), '# Draft');
  await writeFile(join(root, 'README.md'), 'files at the root belong to no collection');
});
afterAll(async () => {
  await extractor.close();
  await rm(root, { recursive: true, force: true });
});

describe('listCollections / loadCollection', () => {
  it('lists collection folders and skips hidden ones', async () => {
    expect(await listCollections(root)).toEqual(['guides']);
    expect(await listCollections(join(root, 'missing'))).toEqual([]);
  });

  it('loads supported files recursively with posix paths, skipping empty, hidden and unsupported files', async () => {
    const { documents, failed } = await loadCollection(root, 'guides', { extractor });
    expect(failed).toEqual([]);
    expect(documents.map((document) => [document.path, document.format, document.title])).toEqual([
      ['intro.md', 'markdown', 'Getting started'],
      ['nested/faq.txt', 'text', 'Faq'],
      ['page.html', 'html', 'Page & more'],
    ]);
    expect(documents[0]?.chunks).toEqual([{ chunkIndex: 0, heading: 'Welcome', content: 'Hello there.' }]);
    expect(documents.every((document) => document.collection === 'guides')).toBe(true);
  });

  it('rejects collection names that could escape the root', async () => {
    await expect(loadCollection(root, '../etc', { extractor })).rejects.toThrow(/invalid knowledge collection/);
  });
});

describe('loadDocument', () => {
  it('takes a Markdown title from the first heading when there is no front matter', async () => {
    const document = await loadDocument('a.md', Buffer.from('Intro line\n\n## Setting up\ntext'));
    expect(document.title).toBe('Setting up');
  });

  it('turns HTML into text with Markdown headings, dropping navigation, scripts, images and link targets', () => {
    const text = htmlToText(
      '<nav><a href="/">Home</a></nav><h1>Guide</h1><p>Read <a href="https://x.example/y">the docs</a>.</p>' +
        '<script>alert(1)</script><img src="a.png" alt="pic"><h2>Part <em>two</em></h2><ul><li>one</li><li>two</li></ul>',
    );
    expect(text).toContain('# Guide');
    expect(text).toContain('## Part two');
    expect(text).toContain('Read the docs.');
    expect(text).not.toMatch(/Home|alert|x\.example|a\.png/);
    expect(text).toMatch(/\* one\n \* two/);
  });

  it('extracts the text and title of a PDF', async () => {
    const document = await loadDocument('manual.pdf', minimalPdf('Warranty lasts two years', 'Manual'));
    expect(document.format).toBe('pdf');
    expect(document.title).toBe('Manual');
    expect(document.text).toContain('Warranty lasts two years');
  });
});

/** A one-page PDF with one line of Helvetica text, built by hand with a correct xref table. */
function minimalPdf(text: string, title: string): Uint8Array {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${title}) >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
