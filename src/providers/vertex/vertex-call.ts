/**
 * Vertex AI's addressing: a publisher's model under a project and a location,
 * `{base}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`,
 * with an OAuth access token as the bearer.
 */
import type { CancelSignal } from '../../core/cancel-signal.ts';
import type { VertexSettings } from '../adapter.ts';
import { readAnthropicErrorMessage } from '../anthropic/anthropic-error.ts';
import { readGeminiErrorMessage, readGeminiRetryDelay } from '../gemini/gemini-error.ts';
import type { UpstreamCall } from '../http/upstream-client.ts';

/** Which model family a Vertex model belongs to: Google's Gemini or Anthropic's Claude. */
export type VertexPublisher = 'google' | 'anthropic';

/** Claude models are Anthropic's on Vertex (`claude-sonnet-4-5@20250929`); every other name is Google's. */
export const vertexPublisher = (model: string): VertexPublisher => (model.startsWith('claude') ? 'anthropic' : 'google');

/** The regional endpoint of a location; `global` has no region prefix. */
export const vertexBaseUrl = (location: string): string => (location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${location}-aiplatform.googleapis.com`);

export function vertexModelPath(settings: VertexSettings, publisher: VertexPublisher, model: string, method: string): string {
  const name = model.startsWith('models/') ? model.slice('models/'.length) : model;
  // Claude's version suffix (`@20250929`) stays literal, as Vertex documents its paths.
  return `/v1/projects/${encodeURIComponent(settings.project)}/locations/${encodeURIComponent(settings.location)}/publishers/${publisher}/models/${encodeURIComponent(name).replaceAll('%40', '@')}:${method}`;
}

/**
 * Vertex answers Claude's own errors in Anthropic's shape (`{type: "error", error}`) and
 * its platform's (auth, quota, routing) in Google's, whichever publisher was called.
 */
const readVertexErrorMessage = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && (body as Record<string, unknown>)['type'] === 'error' ? readAnthropicErrorMessage(body) : readGeminiErrorMessage(body);

export function vertexCall(path: string, token: string, signal: CancelSignal): UpstreamCall {
  return {
    path,
    signal,
    headers: { authorization: `Bearer ${token}` },
    readErrorMessage: readVertexErrorMessage,
    readRetryAfter: readGeminiRetryDelay,
  };
}
