import { JunctionError } from '../../core/errors.ts';
import type { EmbeddingRequest } from '../../providers/adapter.ts';
import type { BatchEmbedContentsRequest, EmbedContentRequest } from './gemini-request-schemas.ts';

/**
 * Gemini embedding bodies → canonical EmbeddingRequest (minus the model, which comes
 * from the URL). The parts of one content are joined with "\n" into one input, as
 * Gemini embeds a content as a whole. Lossy: `title` (a RETRIEVAL_DOCUMENT hint) has
 * no canonical field and is dropped; taskType reaches Gemini models only.
 */
export function convertEmbedContentBody(body: EmbedContentRequest, pathModel: string, qualify: Qualify): Omit<EmbeddingRequest, 'model'> {
  checkModel(body.model, pathModel, 'model', qualify);
  return { input: [inputText(body)], ...options(body) };
}

/**
 * One canonical request serves the batch, so every entry must ask for the same task
 * type and dimensionality (the official SDK always sends them uniform); each entry's
 * `model` must name the path's model, as Gemini requires.
 */
export function convertBatchEmbedContentsBody(body: BatchEmbedContentsRequest, pathModel: string, qualify: Qualify): Omit<EmbeddingRequest, 'model'> {
  const [first] = body.requests;
  const shared = first === undefined ? {} : options(first);
  body.requests.forEach((entry, index) => {
    checkModel(entry.model, pathModel, `requests.${index}.model`, qualify);
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

/** A request's model name as the path's was resolved (`models/x` and bare Gemini names qualified). */
export type Qualify = (name: string) => string;

/**
 * `models/gemini-embedding-001`, `gemini-embedding-001` and `google/gemini-embedding-001`
 * name the same model: each side is qualified the way the URL's model was.
 */
function checkModel(model: string | null | undefined, pathModel: string, param: string, qualify: Qualify): void {
  if (model == null) return;
  if (qualify(model) !== qualify(pathModel)) {
    throw new JunctionError('invalid_request', `Request model "${model}" does not match the model in the URL ("${pathModel}").`, {
      param,
    });
  }
}
