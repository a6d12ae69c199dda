import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { computeChatCost, computeEmbeddingCost, computeImageCost, computeSpeechCost, computeTranscriptionCost, worstCaseChatCost, worstCaseImageCost } from '../../../src/catalog/costs.ts';
import { resolveModel } from '../../../src/catalog/lookup.ts';
import type { CatalogModel, ModelPrices } from '../../../src/catalog/types.ts';

const NOW = new Date('2026-01-15T00:00:00Z');
const catalog = buildCatalog({
  providers: [
    { id: 'openai', kind: 'openai' },
    { id: 'anthropic', kind: 'anthropic' },
    { id: 'google', kind: 'gemini' },
  ],
  now: NOW,
});

const model = (id: string): CatalogModel => {
  const found = resolveModel(catalog, id);
  if (!found) throw new Error(`missing ${id}`);
  return found;
};

const synthetic = (prices: ModelPrices, extra: Partial<CatalogModel> = {}): CatalogModel => ({
  id: 'test/model',
  canonicalId: 'test/model',
  providerId: 'test',
  providerKind: 'openai-compatible',
  upstreamName: 'model',
  displayName: undefined,
  capabilities: new Set(['chat']),
  contextLength: undefined,
  maxOutputTokens: undefined,
  prices,
  mediaParamsSchema: undefined,
  created: 0,
  source: 'config',
  acceptsSnapshot: undefined,
  ...extra,
});

describe('computeChatCost', () => {
  it('charges 1M input tokens of a $0.15/M model exactly 150000 µUSD', () => {
    expect(computeChatCost(model('openai/gpt-4o-mini'), { inputTokens: 1_000_000, outputTokens: 0 })).toBe(150_000);
    expect(computeChatCost(model('openai/gpt-4o-mini'), { inputTokens: 0, outputTokens: 1_000_000 })).toBe(600_000);
  });

  it('rounds the whole call up once to a whole µUSD', () => {
    const cheap = synthetic({ inputPerMillion: 150_000, outputPerMillion: 600_000 });
    // 1 token × 0.15 µUSD = 0.15 → 1
    expect(computeChatCost(cheap, { inputTokens: 1, outputTokens: 0 })).toBe(1);
    // 10 × 0.15 + 1 × 0.6 = 2.1 → 3
    expect(computeChatCost(cheap, { inputTokens: 10, outputTokens: 1 })).toBe(3);
    // 1 × 0.15 + 1 × 0.6 = 0.75 → 1: one rounding per call, not one per part (which would charge 2)
    expect(computeChatCost(cheap, { inputTokens: 1, outputTokens: 1 })).toBe(1);
    // exact multiples do not round: 20 × 0.15 = 3.0
    expect(computeChatCost(cheap, { inputTokens: 20, outputTokens: 0 })).toBe(3);
    expect(computeChatCost(cheap, { inputTokens: 0, outputTokens: 0 })).toBe(0);
  });

  it('charges cached and cache-write tokens at their own rates, as subsets of inputTokens', () => {
    const sonnet = model('anthropic/claude-sonnet-4-5'); // $3 in, $0.30 cache read, $3.75 cache write, $15 out
    const cost = computeChatCost(sonnet, {
      inputTokens: 10_000,
      cachedInputTokens: 6_000,
      cacheWriteTokens: 3_000,
      outputTokens: 500,
    });
    // 1,000 × 3 + 6,000 × 0.3 + 3,000 × 3.75 + 500 × 15 = 3,000 + 1,800 + 11,250 + 7,500 µUSD
    expect(cost).toBe(23_550);
  });

  it('falls back to the input rate when a model has no cache prices', () => {
    const plain = synthetic({ inputPerMillion: 1_000_000, outputPerMillion: 0 });
    expect(computeChatCost(plain, { inputTokens: 100, cachedInputTokens: 40, cacheWriteTokens: 60, outputTokens: 0 })).toBe(100);
  });

  it('applies long-context tiers to the whole call above the threshold', () => {
    const sonnet = model('anthropic/claude-sonnet-4-5');
    expect(computeChatCost(sonnet, { inputTokens: 200_000, outputTokens: 0 })).toBe(600_000);
    expect(computeChatCost(sonnet, { inputTokens: 200_001, outputTokens: 1_000 })).toBe(1_200_006 + 22_500);
  });

  it('agrees with @pydantic/genai-prices calcPrice for real models and mixed usage', () => {
    const cases: Array<[string, string, string, Record<string, number>]> = [
      ['openai/gpt-4o-mini', 'gpt-4o-mini', 'openai', { input_tokens: 123_457, cache_read_tokens: 20_000, output_tokens: 9_876 }],
      ['openai/gpt-4.1', 'gpt-4.1', 'openai', { input_tokens: 77_777, cache_read_tokens: 7_777, output_tokens: 3_333 }],
      ['anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5', 'anthropic', { input_tokens: 50_000, cache_read_tokens: 10_000, cache_write_tokens: 5_000, output_tokens: 2_000 }],
      ['anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5', 'anthropic', { input_tokens: 250_000, output_tokens: 2_000 }],
      ['google/gemini-2.5-flash', 'gemini-2.5-flash', 'google', { input_tokens: 999_999, cache_read_tokens: 1, output_tokens: 31 }],
      ['google/gemini-2.5-pro', 'gemini-2.5-pro', 'google', { input_tokens: 300_000, output_tokens: 10_000 }],
    ];
    for (const [id, name, providerId, usage] of cases) {
      const published = calcPrice(usage, name, { providerId, timestamp: NOW });
      if (!published) throw new Error(`no published price for ${name}`);
      const ours = computeChatCost(model(id), {
        inputTokens: usage['input_tokens'] ?? 0,
        cachedInputTokens: usage['cache_read_tokens'],
        cacheWriteTokens: usage['cache_write_tokens'],
        outputTokens: usage['output_tokens'] ?? 0,
      });
      // The package computes in floats; ours is the exact value rounded up.
      expect(ours - published.total_price * 1e6, id).toBeGreaterThanOrEqual(-1e-6);
      expect(ours - published.total_price * 1e6, id).toBeLessThan(1);
    }
  });
});

describe('worstCaseChatCost', () => {
  it('prices all input at the dearer of input and cache-write, plus the largest allowed output', () => {
    const sonnet = model('anthropic/claude-sonnet-4-5'); // max output 64,000
    expect(worstCaseChatCost(sonnet, { inputTokens: 1_000, maxOutputTokens: 100 })).toBe(3_750 + 1_500);
    expect(worstCaseChatCost(sonnet, { inputTokens: 1_000, maxOutputTokens: 1_000_000 })).toBe(3_750 + 64_000 * 15);
    expect(worstCaseChatCost(sonnet, { inputTokens: 1_000 })).toBe(3_750 + 64_000 * 15);
  });

  it('uses the context window, then a fixed fallback, when the output is unbounded', () => {
    const windowed = synthetic({ inputPerMillion: 1_000_000, outputPerMillion: 1_000_000 }, { contextLength: 8_192 });
    expect(worstCaseChatCost(windowed, { inputTokens: 192 })).toBe(8_192);
    const unbounded = synthetic({ inputPerMillion: 0, outputPerMillion: 1_000_000 });
    expect(worstCaseChatCost(unbounded, { inputTokens: 10 })).toBe(32_768);
  });

  it('is never below the settled cost of a call within the reservation', () => {
    const mini = model('openai/gpt-4o-mini');
    const worst = worstCaseChatCost(mini, { inputTokens: 5_000, maxOutputTokens: 700 });
    expect(computeChatCost(mini, { inputTokens: 5_000, cachedInputTokens: 1_000, outputTokens: 700 })).toBeLessThanOrEqual(worst);
  });
});

describe('media and embedding costs', () => {
  it('embeddings: text-embedding-3-small at $0.02/M', () => {
    expect(computeEmbeddingCost(model('openai/text-embedding-3-small'), 1_000_000)).toBe(20_000);
    expect(computeEmbeddingCost(model('openai/text-embedding-3-small'), 1)).toBe(1);
    expect(computeEmbeddingCost(model('google/gemini-embedding-001'), 2_000)).toBe(300);
  });

  it('images: per image by quality and size, defaults from the media schema', () => {
    const dalle = model('openai/dall-e-3');
    expect(computeImageCost(dalle, { count: 1 })).toBe(40_000);
    expect(computeImageCost(dalle, { count: 1, quality: 'hd', size: '1024x1792' })).toBe(120_000);
    expect(computeImageCost(dalle, { count: 2, size: '1792x1024' })).toBe(160_000);
    expect(computeImageCost(model('openai/dall-e-2'), { count: 3, size: '256x256' })).toBe(48_000);
    expect(worstCaseImageCost(dalle, { count: 1 })).toBe(120_000);
  });

  it('images: token-priced models bill reported usage, and reserve the dearest option', () => {
    const image = model('openai/gpt-image-1'); // $5/M text in, $40/M image out
    expect(computeImageCost(image, { count: 1, usage: { inputTokens: 50, outputTokens: 4_160 } })).toBe(250 + 166_400);
    expect(computeImageCost(image, { count: 1, quality: 'low', size: '1024x1024' })).toBe(11_000);
    expect(worstCaseImageCost(image, { count: 2, promptTokens: 100 })).toBe(2 * 250_000 + 500);
  });

  it('speech: tts-1 at $15 per million characters', () => {
    expect(computeSpeechCost(model('openai/tts-1'), 1_000_000)).toBe(15_000_000);
    expect(computeSpeechCost(model('openai/tts-1'), 1)).toBe(15);
    expect(computeSpeechCost(model('openai/tts-1-hd'), 1_001)).toBe(30_030);
  });

  it('transcription: whisper-1 at $0.006/min, by milliseconds rounded up', () => {
    const whisper = model('openai/whisper-1');
    expect(computeTranscriptionCost(whisper, { durationSeconds: 60 })).toBe(6_000);
    expect(computeTranscriptionCost(whisper, { durationSeconds: 1.0001 })).toBe(101);
    expect(computeTranscriptionCost(whisper, { durationSeconds: 0 })).toBe(0);
    const transcribe = model('openai/gpt-4o-transcribe'); // $6/M audio in, $10/M out
    expect(computeTranscriptionCost(transcribe, { durationSeconds: 60, usage: { inputTokens: 1_000, outputTokens: 100 } })).toBe(7_000);
    expect(computeTranscriptionCost(transcribe, { durationSeconds: 60 })).toBe(6_000);
  });
});
