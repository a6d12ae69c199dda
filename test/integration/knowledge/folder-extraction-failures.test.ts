import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentExtractor } from '../../../src/knowledge/document-extractor.ts';
import { indexKnowledge } from '../../../src/knowledge/knowledge-indexer.ts';
import { countChunks, listDocuments } from '../../../src/knowledge/knowledge-repository.ts';
import type { Database } from '../../../src/store/database.ts';
import { openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { minimalPdf } from '../../support/pdf-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** The operator's knowledge folder goes through the uploads' extraction rules, but a file that fails is skipped and logged. */
let db: Database;
let accountId: string;
let close: () => Promise<void>;
let root: string;
const extractor = new DocumentExtractor();

beforeAll(async () => {
  ({ db, accountId, close } = await openKnowledgeDatabase());
  root = await mkdtemp(join(tmpdir(), 'junction-folder-failures-'));
  await mkdir(join(root, 'manuals'));
  await writeFile(join(root, 'manuals', 'kettle.md'), '# Kettle\n\nDescale the kettle every month.\n');
  await writeFile(join(root, 'manuals', 'toaster.pdf'), minimalPdf('The toaster has four slots', 'Toaster'));
  await writeFile(join(root, 'manuals', 'deep.html'), `<body>${'<div>'.repeat(2_000)}lost${'</div>'.repeat(2_000)}</body>`);
}, 60_000);
afterAll(async () => {
  await extractor.close();
  await close();
  await rm(root, { recursive: true, force: true });
});

describe(`knowledge folder extraction failures on ${engineName()}`, () => {
  it('indexes the readable files and reports the others by path', async () => {
    const errors: Array<[string, string]> = [];
    await indexKnowledge({ db, accountId, rootDir: root, extractor, onDocumentError: (path, error) => errors.push([path, error.message]) });
    expect(errors).toEqual([['manuals/deep.html', "'deep.html' nests its HTML elements more than 512 levels deep."]]);
    expect((await listDocuments(db, accountId, 'manuals')).map((document) => document.path).sort()).toEqual(['kettle.md', 'toaster.pdf']);
  }, 60_000);

  it('keeps the earlier index of a file that fails after it was indexed', async () => {
    await writeFile(join(root, 'manuals', 'toaster.pdf'), Buffer.from('%PDF-1.4 this is no longer a PDF'));
    const errors: string[] = [];
    await indexKnowledge({ db, accountId, rootDir: root, extractor, onDocumentError: (path) => errors.push(path) });
    expect(errors.sort()).toEqual(['manuals/deep.html', 'manuals/toaster.pdf']);
    expect((await listDocuments(db, accountId, 'manuals')).map((document) => document.path).sort()).toEqual(['kettle.md', 'toaster.pdf']);
    expect((await countChunks(db, accountId, 'manuals')).documents).toBe(2);
  }, 60_000);
});
