import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { parseCatalogConfig } from '../../../src/catalog/load-config.ts';
import { resolveModel } from '../../../src/catalog/lookup.ts';
import { toModelListEntry } from '../../../src/catalog/model-list.ts';
import { formatScaled, scaleDecimal } from '../../../src/catalog/money.ts';

const NOW = new Date('2026-01-15T00:00:00Z');
const catalog = buildCatalog({
  providers: [
    { id: 'openai', kind: 'openai' },
    { id: 'ollama', kind: 'openai-compatible' },
  ],
  config: parseCatalogConfig({ providers: { ollama: { kind: 'openai-compatible', base_url: 'http://localhost:11434/v1', models: ['llama3.2'] } } }),
  now: NOW,
});
const entry = (id: string) => {
  const model = resolveModel(catalog, id);
  if (!model) throw new Error(`missing ${id}`);
  return toModelListEntry(model);
};

describe('toModelListEntry', () => {
  it('renders a chat model in the OpenAI list shape with exact USD-per-token strings', () => {
    expect(entry('openai/gpt-4o-mini')).toEqual({
      id: 'openai/gpt-4o-mini',
      object: 'model',
      created: Math.floor(NOW.getTime() / 1000),
      owned_by: 'openai',
      capabilities: ['chat', 'tools', 'vision', 'json_output'],
      pricing: { prompt: '0.00000015', completion: '0.0000006', input_cache_read: '0.000000075' },
      context_length: 128_000,
      max_output_tokens: 16_384,
    });
  });

  it('renders media prices per unit and includes the params schema', () => {
    const dalle = entry('openai/dall-e-3');
    expect(dalle.pricing.image).toBe('0.04');
    expect(dalle.pricing.image_variants?.['hd/1024x1792']).toBe('0.12');
    expect(dalle.media_params_schema).toBeDefined();
    expect(entry('openai/tts-1').pricing).toEqual({ character: '0.000015' });
    expect(entry('openai/whisper-1').pricing).toEqual({ audio_second: '0.0001' });
    expect(JSON.parse(JSON.stringify(dalle))).toEqual(dalle);
  });

  it('shows openai-compatible models as free', () => {
    expect(entry('ollama/llama3.2')).toMatchObject({ owned_by: 'ollama', pricing: { prompt: '0', completion: '0' }, context_length: null });
  });
});

describe('money', () => {
  it('scales decimals exactly, rounding up only past the scale', () => {
    expect(scaleDecimal(0.075, 6)).toEqual({ value: 75_000n, exact: true });
    expect(scaleDecimal(0.1 + 0.2, 6)).toEqual({ value: 300_001n, exact: false });
    expect(scaleDecimal('1.25', 6)).toEqual({ value: 1_250_000n, exact: true });
    expect(scaleDecimal(1e-7, 6)).toEqual({ value: 1n, exact: false });
    expect(scaleDecimal(2e21, 0)).toEqual({ value: 2_000_000_000_000_000_000_000n, exact: true });
    expect(() => scaleDecimal(-1, 6)).toThrow(RangeError);
    expect(formatScaled(150_000n, 12)).toBe('0.00000015');
    expect(formatScaled(40_000n, 6)).toBe('0.04');
    expect(formatScaled(0n, 6)).toBe('0');
  });
});
