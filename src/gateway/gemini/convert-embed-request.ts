import { JunctionError } from '../../core/errors.ts';
import type { EmbeddingRequest } from '../../providers/adapter.ts';
import type { BatchEmbedContentsRequest, EmbedContentRequest } from './gemini-request-schemas.ts';

/**
 * Gemini embedding bodies → canonical EmbeddingRequest (minus the model, which comes
 * from the URL). The parts of one content are joined with "\n" into one input, as
 * Gemini embeds a content as a whole. Lossy: `title` (a RETRIEVAL_DOCUMENT hint) has
 * no canonical field and is dropped; taskType reaches Gemini models only.
 */
export function convertEmbedContentBody(body: EmbedContentRequest, pathModel: string): Omit<EmbeddingRequest, 'model'> {
  checkModel(body.model, pathModel, 'model');
  return { input: [inputText(body)], ...options(body) };
}

/**
 * One canonical request serves the batch, so every entry must ask for the same task
 * type and dimensionality (the official SDK always sends them uniform); each entry's
 * `model` must name the path's model, as Gemini requires.
 */
export function convertBatchEmbedContentsBody(body: BatchEmbedContentsRequest, pathModel: string): Omit<EmbeddingRequest, 'model'> {
  const [first] = body.requests;
  const shared = first === undefined ? {} : options(first);
  body.requests.forEach((entry, index) => {
    checkModel(entry.model, pathModel, `requests.${index}.model`);
    const own = options(entry);
    if (own.taskType !== shared.taskType || own.dimensions !== shared.dimensions) {
      throw new JunctionError('invalid_request', 'All requests in a batch must use the same taskType and outputDimensionality.', {
        param: `requests.${index}`,
      });
    }
  });
  return { input: body.requests.map(inputText), ...shared };
}

function inputText(entry: EmbedContentRequest): string {
  return entry.content.parts.map((part) => part.text).join('\n');
}

function options(entry: EmbedContentRequest): { taskType?: string; dimensions?: number } {
  return {
    ...(entry.taskType == null ? {} : { taskType: entry.taskType }),
    ...(entry.outputDimensionality == null ? {} : { dimensions: entry.outputDimensionality }),
  };
}

/** `models/google/text-embedding-004` and `google/text-embedding-004` name the same model. */
function checkModel(model: string | null | undefined, pathModel: string, param: string): void {
  if (model == null) return;
  const strip = (name: string) => name.replace(/^models\//, '');
  if (strip(model) !== strip(pathModel)) {
    throw new JunctionError('invalid_request', `Request model "${model}" does not match the model in the URL ("${pathModel}").`, {
      param,
    });
  }
}
