import { JunctionError } from '../../core/errors.ts';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'embedContent' | 'batchEmbedContents';

const METHODS: ReadonlySet<string> = new Set<GeminiMethod>(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);

/**
 * `{model}:{method}` from a `/v1beta/models/…` URL. Our model ids contain a slash:
 * the official @google/genai client sends it as is (`models/google/gemini-2.5-flash:generateContent`),
 * hand-written clients often encode it (`models/google%2Fgemini-2.5-flash:…`). Both are
 * read from the raw URL, decoded once, so neither depends on how the router decodes a
 * wildcard. A doubled `models/` prefix (a client that already said `models/x`) is dropped.
 */
export function parseGeminiPath(rawUrl: string): { model: string; method: GeminiMethod } {
  const rest = afterModels(rawUrl);
  const colon = rest.lastIndexOf(':');
  const model = (colon < 0 ? rest : rest.slice(0, colon)).replace(/^models\//, '');
  const method = colon < 0 ? '' : rest.slice(colon + 1);
  if (!isGeminiMethod(method)) {
    throw new JunctionError('not_found', `Unknown method '${method}'. Use models/{model}:generateContent, :streamGenerateContent, :countTokens, :embedContent or :batchEmbedContents.`);
  }
  if (model === '') throw new JunctionError('invalid_request', 'The URL names no model.', { param: 'model' });
  return { model, method };
}

const isGeminiMethod = (method: string): method is GeminiMethod => METHODS.has(method);

/** `{model}` from `GET /v1beta/models/{model}` (models.get), read the same way. */
export function parseGeminiModelPath(rawUrl: string): string {
  const model = afterModels(rawUrl).replace(/^models\//, '');
  if (model === '') throw new JunctionError('invalid_request', 'The URL names no model.', { param: 'model' });
  return model;
}

/** The decoded path after `/models/`. */
function afterModels(rawUrl: string): string {
  const path = rawUrl.split('?')[0] ?? '';
  const marker = '/models/';
  const start = path.indexOf(marker);
  try {
    return decodeURIComponent(start < 0 ? '' : path.slice(start + marker.length));
  } catch {
    throw new JunctionError('invalid_request', 'The model in the URL is not valid percent-encoding.');
  }
}
