/** Reads recorded OpenAI traffic from test/fixtures/openai. */
import { readFileSync } from 'node:fs';

const directory = new URL('../../../fixtures/openai/', import.meta.url);

export const fixtureText = (name: string): string => readFileSync(new URL(name, directory), 'utf8');
export const fixtureJson = (name: string): unknown => JSON.parse(fixtureText(name));

/** The fixture's bytes cut into `size`-byte pieces, so parsers meet split lines and split UTF-8 characters. */
export async function* fixtureBytes(name: string, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = readFileSync(new URL(name, directory));
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
