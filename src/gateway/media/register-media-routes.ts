import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { UnaryPipeline } from '../../pipeline/unary-pipeline.ts';
import { embeddingsRoute } from './embeddings-route.ts';
import { imagesRoute } from './images-route.ts';
import { moderationsRoute } from './moderations-route.ts';
import { speechRoute } from './speech-route.ts';
import { transcriptionsRoutes } from './transcriptions-route.ts';

/**
 * Model calls resolve their model (and its media_params_schema) inside the pipeline, so
 * no catalog is needed here. `auth` replaces the model-key check where another caller
 * is authenticated (the console's "Try", which runs as the session's account).
 */
export type MediaRouteDeps = { authenticator: KeyAuthenticator; unary: UnaryPipeline; auth?: preHandlerAsyncHookHandler };

/**
 * The OpenAI media endpoints under `/v1`, model keys only: embeddings, image
 * generation, moderation, speech, transcription and translation. Every call goes
 * through the unary pipeline (admission, reservation, settlement, usage log).
 */
export async function mediaRoutes(app: FastifyInstance, deps: MediaRouteDeps): Promise<void> {
  await app.register(embeddingsRoute, deps);
  await app.register(imagesRoute, deps);
  await app.register(moderationsRoute, deps);
  await app.register(speechRoute, deps);
  await app.register(transcriptionsRoutes, deps);
}
