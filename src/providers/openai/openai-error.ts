/**
 * Reads the human message out of an OpenAI(-compatible) error body, for
 * `UpstreamError.upstreamMessage`. OpenAI's shape is `{error: {message, type, param,
 * code}}`; compatible servers vary (`{error: "…"}` from Ollama, `{message}` from
 * vLLM, `{detail}` from FastAPI-based servers), which the generic reader covers.
 */
import { readGenericErrorMessage, type ErrorMessageReader } from '../http/upstream-client.ts';
import { OpenAIErrorBodySchema } from './openai-wire-schemas.ts';

export const readOpenAIErrorMessage: ErrorMessageReader = (body) => {
  const parsed = OpenAIErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { message, code } = parsed.data.error;
    // An empty message happens (some 5xx); the code is then the only hint.
    if (message !== undefined && message !== null && message !== '') return message;
    if (code !== undefined && code !== null) return String(code);
  }
  return readGenericErrorMessage(body);
};

/** The message of an error object sent inside a stream (`data: {"error": {...}}`). */
export const readOpenAIStreamError = (error: unknown): string => readOpenAIErrorMessage({ error }, '') ?? 'upstream reported an error mid-stream';
