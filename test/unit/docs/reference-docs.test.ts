import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfigurationPage } from '../../../scripts/reference-docs/configuration-page.ts';
import { withErrorTable } from '../../../scripts/reference-docs/error-table.ts';
import { describeType, schemaRows } from '../../../scripts/reference-docs/schema-rows.ts';
import { EnvSchema } from '../../../src/config/env-config.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const STALE = 'is stale: run `npm run docs` and commit the result';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

describe('the generated reference', () => {
  it('docs/configuration.md is what the schemas say', () => {
    expect(read('docs/configuration.md'), `docs/configuration.md ${STALE}`).toBe(renderConfigurationPage());
  });

  it("docs/gateway.md's error table is the code table", () => {
    const page = read('docs/gateway.md');
    expect(page, `the error table in docs/gateway.md ${STALE}`).toBe(withErrorTable(page));
  });

  it('every environment variable the server reads is declared in the schema, so the reference lists it', () => {
    const declared = new Set(Object.keys(EnvSchema.shape));
    const read = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)) read.add(match[1] as string);
    }
    expect(read.size).toBeGreaterThan(10);
    expect([...read].filter((name) => !declared.has(name)).sort()).toEqual([]);
  });
});

describe('schema rows', () => {
  it('flattens maps, lists and alternatives into dotted paths with their types and defaults', () => {
    const rows = schemaRows({
      type: 'object',
      properties: {
        providers: {
          type: 'object',
          description: 'by id',
          additionalProperties: {
            type: 'object',
            properties: { models: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object', properties: { name: { type: 'string', description: 'the name' } } }] } } },
          },
        },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
      },
    });
    expect(rows).toEqual([
      { path: 'providers', type: 'object', default: '', description: 'by id' },
      { path: 'providers.<id>.models', type: 'list of string or object', default: '', description: '' },
      { path: 'providers.<id>.models[].name', type: 'string', default: '', description: 'the name' },
      { path: 'port', type: 'integer 0–65535', default: '`8080`', description: '' },
    ]);
    expect(describeType({ type: 'number', exclusiveMinimum: 0 })).toBe('number > 0');
    expect(describeType({ type: 'integer', exclusiveMinimum: 0 })).toBe('integer ≥ 1');
  });
});
