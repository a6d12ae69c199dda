/**
 * `npm run docs`: writes the generated reference, docs/configuration.md and the error table
 * in docs/gateway.md, from the schemas and the code table. A test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderConfigurationPage } from './configuration-page.ts';
import { withErrorTable } from './error-table.ts';

const docs = (name: string) => new URL(`../../docs/${name}`, import.meta.url).pathname;

writeFileSync(docs('configuration.md'), renderConfigurationPage());
writeFileSync(docs('gateway.md'), withErrorTable(readFileSync(docs('gateway.md'), 'utf8')));
console.log('wrote docs/configuration.md and the error table in docs/gateway.md');
