import { readGenericErrorMessage } from '../http/upstream-client.ts';
import { CohereErrorBodySchema } from './cohere-wire-schemas.ts';

/** Error-body reader for the shared HTTP client: Cohere answers `{"id": "…", "message": "…"}`. */
export function readCohereErrorMessage(body: unknown): string | undefined {
  const parsed = CohereErrorBodySchema.safeParse(body);
  return (parsed.success ? parsed.data.message : undefined) ?? readGenericErrorMessage(body);
}
