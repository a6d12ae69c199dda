import type { CatalogModel } from '../../catalog/types.ts';
import { JunctionError } from '../../core/errors.ts';

/** A model as Gemini's `models.list` / `models.get` describe one. */
export type GeminiModel = {
  name: string;
  baseModelId: string;
  version: string;
  displayName: string;
  inputTokenLimit?: number;
  outputTokenLimit?: number;
  supportedGenerationMethods: string[];
  thinking?: boolean;
};

/**
 * Only the methods /v1beta serves for this model: chat models generate, stream and
 * count; embedding models embed. `name` is what the client sends back
 * (`models/openai/gpt-4o-mini:generateContent` works as is).
 */
export function toGeminiModel(model: CatalogModel): GeminiModel {
  const methods: string[] = [];
  if (model.capabilities.has('chat')) methods.push('generateContent', 'streamGenerateContent', 'countTokens');
  if (model.capabilities.has('embeddings')) methods.push('embedContent', 'batchEmbedContents');
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: model.upstreamName,
    displayName: model.displayName ?? model.id,
    ...(model.contextLength !== undefined && { inputTokenLimit: model.contextLength }),
    ...(model.maxOutputTokens !== undefined && { outputTokenLimit: model.maxOutputTokens }),
    supportedGenerationMethods: methods,
    ...(model.capabilities.has('chat') && { thinking: model.capabilities.has('reasoning') }),
  };
}

/** Gemini's pages: `pageSize` (default 50, at most 1000) and an opaque `pageToken`. */
export function pageOfModels(models: readonly CatalogModel[], pageSize: number, pageToken: string | undefined): { models: GeminiModel[]; nextPageToken?: string } {
  const decoded = pageToken === undefined ? '0' : Buffer.from(pageToken, 'base64url').toString('utf8');
  if (!/^\d{1,9}$/.test(decoded)) throw new JunctionError('invalid_request', 'pageToken is not one this server gave out.', { param: 'pageToken' });
  const offset = Number(decoded);
  const end = offset + pageSize;
  return {
    models: models.slice(offset, end).map(toGeminiModel),
    ...(end < models.length && { nextPageToken: Buffer.from(String(end), 'utf8').toString('base64url') }),
  };
}
