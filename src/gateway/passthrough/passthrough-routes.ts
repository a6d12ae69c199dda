import { RawStreamWriter } from '../../http/raw-stream-writer.ts';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { computeChatCost } from '../../catalog/costs.ts';
import { resolveModel } from '../../catalog/lookup.ts';
import type { CatalogModel } from '../../catalog/types.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import type { Usage } from '../../core/model-types.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../http/json-nesting-depth.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { AdmissionDeps } from '../../pipeline/admission.ts';
import { newGenerationId } from '../../pipeline/generation-id.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { usageLogEntry } from '../../pipeline/usage-log-entry.ts';
import type { ProviderRegistry } from '../../providers/provider-registry.ts';
import type { UsageStatus } from '../../billing/usage-record.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { forwardToProvider, responseHeaders } from './forward-request.ts';
import { admitPassthrough, isDeferredBilling, PASSTHROUGH_PROVIDER, type PassthroughGate, reportsUsage } from './passthrough-gate.ts';
import { priceReportedUsage } from './upstream-decided-model.ts';
import { UsageTap } from './usage-tap.ts';
import type { Queryable } from '../../store/database.ts';
import { ObjectTap } from './object-tap.ts';
import { ownedList } from './owned-list.ts';
import { forgetObject } from './passthrough-owners.ts';
import { recordFound, requireOwnedReferences } from './passthrough-ownership.ts';
import { pathTarget, type PathTarget } from './referenced-ids.ts';

export type PassthroughDeps = AdmissionDeps & { db: Queryable; authenticator: KeyAuthenticator; providers: ProviderRegistry };

/** OpenAI's stateful API families, passed through with every sub-path and method. */
export const PASSTHROUGH_FAMILIES = ['assistants', 'threads', 'files', 'vector_stores', 'batches', 'responses'] as const;
const METHODS: Dispatcher.HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * `/v1/{assistants,threads,files,vector_stores,batches,responses}/**` to the OpenAI
 * provider: the caller's model key passes the account's gates (see admitPassthrough),
 * is replaced by the provider key, and the answer — JSON, SSE or bytes — streams back
 * as it came. Where an answer reports token usage (/responses, runs) it is billed like
 * the same tokens on /v1/chat/completions; every call gets a usage row.
 *
 * The provider account is shared by every tenant, so each object a call creates is
 * recorded as its account's (passthrough-owners.ts): a call naming another account's
 * object answers 404, and `GET /v1/{family}` lists the account's own objects.
 */
export async function passthroughRoutes(app: FastifyInstance, deps: PassthroughDeps): Promise<void> {
  // Bodies stay streams here (multipart uploads go upstream unbuffered); this plugin's
  // context only, so every other route keeps fastify's JSON parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const preHandler = requireKey(deps.authenticator, { kinds: ['model'] });
  for (const family of PASSTHROUGH_FAMILIES) {
    for (const url of [`/${family}`, `/${family}/*`]) {
      app.route({ method: METHODS, url, preHandler, handler: (request, reply) => passThrough(deps, request, reply) });
    }
  }
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one request relayed in order (admit, forward, stream back, settle); split, the order is harder to follow
async function passThrough(deps: PassthroughDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const startedAt = performance.now();
  const createdAt = new Date();
  const id = newGenerationId();
  const { path, pathAndQuery } = upstreamTarget(request.url);
  const method = request.method.toUpperCase() as Dispatcher.HttpMethod;
  const context = callContextFrom(request, reply, `passthrough.${path.split('/')[1] ?? ''}`);
  const provider = deps.providers.get(PASSTHROUGH_PROVIDER);
  if (!provider) throw new JunctionError('provider_not_configured', 'The OpenAI provider is not configured (OPENAI_API_KEY), so this API is unavailable.');

  const body = await readBody(request);
  let gate: PassthroughGate;
  let target: PathTarget;
  try {
    target = pathTarget(path);
    gate = await admitPassthrough(deps, context, { method, path, json: body.json, bodyBytes: body.bytes });
  } catch (error) {
    if (isJunctionError(error)) {
      const row = usageLogEntry({
        id,
        context,
        requestedModel: modelNamed(body.json),
        model: undefined,
        status: 'rejected',
        httpStatus: error.status,
        errorCode: error.code,
        costMicros: 0,
        startedAt,
        createdAt,
      });
      deps.budgets.settle(undefined, 0, row, context.key);
    }
    throw error;
  }
  const settle = (
    status: UsageStatus,
    httpStatus: number,
    model: CatalogModel | undefined,
    usage: Usage | undefined,
    costMicros: number,
    streamed = false,
    errorCode?: string,
    row: { id: string; createdAt: Date } = { id, createdAt },
  ) =>
    deps.budgets.settle(
      gate.reservation,
      costMicros,
      usageLogEntry({
        id: row.id,
        context,
        requestedModel: gate.requestedModel,
        model,
        status,
        httpStatus,
        errorCode: errorCode ?? null,
        ...(usage && { usage }),
        costMicros,
        startedAt,
        createdAt: row.createdAt,
        streamed,
      }),
      context.key,
    );

  const accountId = context.key.accountId;
  try {
    if (target.objectId === undefined && path !== `/${target.family}` && method !== 'POST') throw new JunctionError('not_found', `No such endpoint: ${method} /v1${path}.`);
    await requireOwnedReferences(deps.db, accountId, target, body.json);
    if (method === 'GET' && path === `/${target.family}`) {
      const list = await ownedList(deps.db, accountId, target.family, request.url.split(/\?(.*)/s, 2)[1]);
      if (gate.rateLimit) reply.headers(rateLimitHeaders(gate.rateLimit));
      settle('success', 200, gate.model, undefined, 0);
      return reply.send(list);
    }
  } catch (error) {
    if (isJunctionError(error)) settle('rejected', error.status, gate.model, undefined, 0, false, error.code);
    throw error;
  }

  const upstreamBody = gate.rewriteModelTo && body.json ? Buffer.from(JSON.stringify({ ...body.json, model: gate.rewriteModelTo })) : body.payload;
  const billable = reportsUsage(method, path);
  let response: Dispatcher.ResponseData;
  try {
    response = await forwardToProvider(provider.config, { method, pathAndQuery, headers: request.headers, body: upstreamBody, signal: context.signal, identityEncoding: billable });
  } catch (error) {
    const failure = isJunctionError(error) ? error : new JunctionError('upstream_error', 'The pass-through call failed.', { cause: error });
    settle(failure.code === 'client_closed_request' ? 'client_closed' : 'upstream_error', failure.status, gate.model, undefined, 0, false, failure.code);
    throw failure;
  }

  if (gate.rateLimit) reply.headers(rateLimitHeaders(gate.rateLimit));
  const contentType = String(response.headers['content-type'] ?? '');
  const streamed = contentType.includes('text/event-stream');
  const tap = billable && response.statusCode < 300 ? new UsageTap(contentType) : undefined;
  const objects = showsObjects(path, response.statusCode, contentType) ? new ObjectTap(contentType) : undefined;
  const owner = { accountId, keyId: context.key.id };
  const out = new RawStreamWriter(reply, responseHeaders(response.headers), response.statusCode);
  let status: UsageStatus = response.statusCode < 400 ? 'success' : 'upstream_error';
  try {
    // Forgotten before any byte of the answer: a client may act on a body whose length it knows before the reply ends.
    if (method === 'DELETE' && target.isObject && target.objectId !== undefined && response.statusCode < 300) await forgetObject(deps.db, accountId, target.objectId);
    for await (const chunk of response.body) {
      if (out.closed) throw new JunctionError('client_closed_request', 'The client closed the connection.');
      // An object's id reaches the client only once it is recorded as the caller's.
      const release = objects ? objects.push(chunk as Uint8Array) : [chunk as Uint8Array];
      if (objects) await recordFound(deps.db, owner, objects.takeFound());
      for (const piece of release) await out.write(piece);
      tap?.push(chunk as Uint8Array);
    }
    if (objects) {
      const last = objects.finish();
      await recordFound(deps.db, owner, last);
      for (const piece of last.rest) await out.write(piece);
    }
    out.end();
  } catch (error) {
    status = context.signal.aborted ? 'client_closed' : 'upstream_error';
    if (status === 'upstream_error') request.log.warn({ err: error }, 'pass-through response broke off');
    out.destroy();
  }
  const tapped = tap?.finish();
  // Without a model in the request (a prompt's, an assistant's, a stored Response's), the one the provider reports is priced.
  const reported = tapped && !gate.model ? priceReportedUsage(deps.catalog, tapped.upstreamModel, tapped.usage) : undefined;
  // Without usage (a queued background Response, a broken stream) the row still names the model that ran.
  const named = tap?.reportedModel === undefined ? undefined : resolveModel(deps.catalog, `${PASSTHROUGH_PROVIDER}/${tap.reportedModel}`);
  const model = gate.model ?? reported?.model ?? named;
  const costMicros = reported?.costMicros ?? (tapped && model ? computeChatCost(model, tapped.usage) : 0);
  const pricingNote = reported?.errorCode ?? undefined;
  if (status === 'success' && isDeferredBilling(method, path)) status = 'deferred_billing';
  const httpStatus = status === 'client_closed' ? 499 : response.statusCode;
  // Usage is billed once per Response/Run id, in a row named after it: from the POST's
  // answer, or from the first read that finds a background run finished. A read's own
  // row costs nothing; its billing row adds nothing if that id was billed already.
  // Its key is (id, created_at): dated by the object, the POST's row and a read's are one row.
  const billingRow = tapped?.objectId ? { id: `pt-${tapped.objectId}`, createdAt: tapped.objectCreatedAt ?? createdAt } : undefined;
  if (billingRow && method === 'GET') {
    settle(status, httpStatus, model, tapped?.usage, 0, streamed, pricingNote);
    deps.budgets.settle(
      undefined,
      costMicros,
      usageLogEntry({
        id: billingRow.id,
        context,
        requestedModel: gate.requestedModel,
        model,
        status,
        httpStatus,
        errorCode: pricingNote ?? null,
        ...(tapped && { usage: tapped.usage }),
        costMicros,
        startedAt,
        createdAt: billingRow.createdAt,
        streamed,
      }),
      context.key,
    );
  } else {
    settle(status, httpStatus, model, tapped?.usage, costMicros, streamed, pricingNote, billingRow);
  }
  return reply;
}

/**
 * Whether an answer is the provider's own objects, read for ids to record: a 2xx JSON or
 * SSE answer, never a file's content (tenant bytes that could spell any id).
 */
const showsObjects = (path: string, statusCode: number, contentType: string): boolean =>
  statusCode < 300 && decodeURIComponent(path.split('/').at(-1) ?? '') !== 'content' && (contentType.includes('application/json') || contentType.includes('text/event-stream'));

/**
 * The path after `/v1` for upstream, with the query minus `key` (a caller's key never
 * goes upstream). Dot segments are refused, raw or percent-encoded: URL resolution
 * would turn `/files/../chat/completions` into another upstream endpoint, reached
 * with the provider's key and outside this family's gates and billing.
 */
const isDotSegment = (segment: string): boolean => {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return true;
  }
  return decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\');
};

function upstreamTarget(url: string): { path: string; pathAndQuery: string } {
  const [rawPath = '', rawQuery] = url.split(/\?(.*)/s, 2);
  if (rawPath.split('/').some(isDotSegment)) {
    throw new JunctionError('invalid_request', 'Path segments "." and ".." are not allowed.', { param: 'path' });
  }
  const path = rawPath.replace(/^\/v1(?=\/)/, '');
  if (rawQuery === undefined || rawQuery === '') return { path, pathAndQuery: path };
  const query = new URLSearchParams(rawQuery);
  if (!query.has('key')) return { path, pathAndQuery: `${path}?${rawQuery}` };
  query.delete('key');
  const rest = query.toString();
  return { path, pathAndQuery: rest === '' ? path : `${path}?${rest}` };
}

type RequestBody = { payload: Readable | Buffer | undefined; json: Record<string, unknown> | undefined; bytes: number };

/**
 * Multipart uploads stay a stream for undici to forward. Every other body is read whole
 * and parsed as JSON whatever its Content-Type says (the gates need its `model`): a
 * JSON body labelled text/plain, or compressed, would otherwise reach the upstream with
 * a model no gate checked, reserved and billed as a free call.
 */
async function readBody(request: FastifyRequest): Promise<RequestBody> {
  const payload = request.body;
  if (!(payload instanceof Readable)) return { payload: undefined, json: undefined, bytes: 0 };
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new JunctionError('unsupported_media_type', `Content-Encoding '${encoding}' is not accepted on this endpoint; send the body uncompressed.`);
  }
  const contentType = request.headers['content-type'] ?? '';
  const declared = Number(request.headers['content-length'] ?? 0) || 0;
  if (/^\s*multipart\//i.test(contentType)) return { payload, json: undefined, bytes: declared };
  if (declared > LARGE_BODY_LIMIT) throw new JunctionError('request_too_large', 'The request body is larger than this endpoint accepts.');
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of payload) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    bytes += buffer.byteLength;
    if (bytes > LARGE_BODY_LIMIT) throw new JunctionError('request_too_large', 'The request body is larger than this endpoint accepts.');
    chunks.push(buffer);
  }
  const raw = Buffer.concat(chunks);
  const text = raw.toString('utf8');
  // A body nested deeper than any real one would overflow the stack when re-serialized (model rewrite).
  if (exceedsJsonDepth(text)) throw new JunctionError('invalid_request', `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    // Invalid JSON goes upstream as it is: OpenAI's own 400 tells the caller what is wrong.
  }
  return { payload: raw, json, bytes };
}

const modelNamed = (json: Record<string, unknown> | undefined): string | null => (typeof json?.['model'] === 'string' ? json['model'] : null);
