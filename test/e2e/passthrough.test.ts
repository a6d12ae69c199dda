import OpenAI, { toFile } from 'openai';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { computeChatCost } from '../../src/catalog/costs.ts';
import { resolveModel } from '../../src/catalog/lookup.ts';
import { startGateway, type GatewayHarness, UPSTREAM_KEYS } from '../support/gateway-harness.ts';

let gateway: GatewayHarness;
let client: OpenAI;
let modelKey: string;

const clientFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });

type Row = { endpoint: string; model: string | null; status: string; http_status: number; input_tokens: number; output_tokens: number; cost_micros: string; streamed: boolean };
async function rowsFor(endpoint: string): Promise<Row[]> {
  await gateway.settle();
  const result = await gateway.services.db.query<Row>(
    'SELECT endpoint, model, status, http_status, input_tokens, output_tokens, cost_micros, streamed FROM usage_log WHERE endpoint = $1 ORDER BY created_at',
    [endpoint],
  );
  return result.rows;
}

/** What the same tokens cost on /v1/chat/completions: the catalog's one chat formula. */
function chatCost(model: string, inputTokens: number, outputTokens: number): number {
  const entry = resolveModel(gateway.services.catalog, model);
  if (!entry) throw new Error(`no ${model}`);
  return computeChatCost(entry, { inputTokens, outputTokens });
}

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  modelKey = await gateway.key('model');
  client = clientFor(modelKey);
});
afterAll(async () => gateway.close());

describe('OpenAI stateful APIs passed through with the official openai client', () => {
  it('uploads a file and downloads the same bytes, with the provider key upstream', async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, index) => index % 251));
    const file = await client.files.create({ file: await toFile(bytes, 'data.bin'), purpose: 'assistants' });
    expect(file).toMatchObject({ object: 'file', bytes: bytes.length, filename: 'data.bin', purpose: 'assistants' });
    const upload = gateway.openai.requests.at(-1);
    expect(upload?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEYS.openai}`);
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);

    const content = await client.files.content(file.id);
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).toBe(true);
    const listed = await client.files.list();
    expect(listed.data.map((entry) => entry.id)).toContain(file.id);
    expect(await client.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true });
    const upstreamCalls = gateway.openai.requests.length;
    const missing = await client.files.retrieve(file.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    // A deleted file is no longer the account's: Junction answers 404 without asking upstream.
    expect(gateway.openai.requests.length).toBe(upstreamCalls);

    // Rows are ordered by completion time in milliseconds: the delete and the refusal may share one.
    const rows = await rowsFor('passthrough.files');
    expect(rows.map((row) => Number(row.cost_micros))).toEqual([0, 0, 0, 0, 0]);
    expect(rows.map((row) => `${row.status} ${row.http_status}`).sort()).toEqual(['rejected 404', 'success 200', 'success 200', 'success 200', 'success 200']);
  });

  it('bills a /responses call by its usage, like the same tokens on chat completions', async () => {
    const response = await client.responses.create({ model: 'test-echo', input: 'hello through the pass-through' });
    expect(response.output_text).toBe('hello through the pass-through');
    const usage = response.usage;
    if (!usage) throw new Error('no usage');
    expect(usage.output_tokens).toBe(4);
    const [row] = await rowsFor('passthrough.responses');
    expect(row).toMatchObject({ model: 'openai/test-echo', status: 'success', input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, streamed: false });
    expect(Number(row?.cost_micros)).toBe(chatCost('openai/test-echo', usage.input_tokens, usage.output_tokens));
    expect(Number(row?.cost_micros)).toBe(usage.input_tokens * 10 + usage.output_tokens * 20);

    // Retrieval reports the same usage again; it is logged but not billed twice.
    const again = await client.responses.retrieve(response.id);
    expect(again.usage?.output_tokens).toBe(4);
    const rows = await rowsFor('passthrough.responses');
    expect(rows.map((entry) => Number(entry.cost_micros))).toEqual([Number(row?.cost_micros), 0]);
  });

  it('bills a background /responses call once, at the first read that finds it finished', async () => {
    const queued = await client.responses.create({ model: 'openai/test-echo', input: 'run me in the background', background: true });
    expect(queued.status).toBe('queued');
    const first = await client.responses.retrieve(queued.id);
    const second = await client.responses.retrieve(queued.id);
    const usage = first.usage;
    if (!usage) throw new Error('no usage');
    expect(second.usage?.output_tokens).toBe(usage.output_tokens);
    await gateway.settle();
    const billed = await gateway.services.db.query<{ n: number; cost: number }>(
      "SELECT count(*)::int AS n, sum(cost_micros)::bigint AS cost FROM usage_log WHERE endpoint = 'passthrough.responses' AND cost_micros > 0 AND id = $1",
      [`pt-${queued.id}`],
    );
    expect(billed.rows[0]?.n).toBe(1);
    expect(Number(billed.rows[0]?.cost)).toBe(chatCost('openai/test-echo', usage.input_tokens, usage.output_tokens));
  });

  it('logs a batch as deferred_billing: the provider bills it as it runs', async () => {
    const input = await client.files.create({ file: await toFile(Buffer.from('{}\n'), 'batch.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.status).toBe('validating');
    const [row] = await rowsFor('passthrough.batches');
    expect(row).toMatchObject({ status: 'deferred_billing' });
    expect(Number(row?.cost_micros)).toBe(0);
  });

  it('bills a streamed /responses call from its response.completed event', async () => {
    const stream = await client.responses.create({ model: 'openai/test-echo', input: 'stream me through please', stream: true });
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('stream me through please');
    // A catalog id in the body reaches OpenAI as its upstream name.
    expect((gateway.openai.requests.at(-1)?.body as { model: string }).model).toBe('test-echo');
    const usage = completed?.usage;
    if (!usage) throw new Error('no usage');
    // Its row is dated by the Response's own created_at (whole seconds), so it is found by being the one streamed.
    const row = (await rowsFor('passthrough.responses')).find((found) => found.streamed);
    expect(row).toMatchObject({ model: 'openai/test-echo', streamed: true, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens });
    expect(Number(row?.cost_micros)).toBe(chatCost('openai/test-echo', usage.input_tokens, usage.output_tokens));
  });

  it('refuses a model outside the key allowlist, but lets the key use other calls', async () => {
    const limited = clientFor(await gateway.key('model', { allowedModels: ['openai/test-tool'] }));
    const refused = await limited.responses.create({ model: 'test-echo', input: 'hi' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((refused as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('model_not_allowed');
    expect((await limited.responses.create({ model: 'test-tool', input: 'allowed model' })).output_text).toBe('allowed model');
    expect(Array.isArray((await limited.files.list()).data)).toBe(true);
  });

  it('refuses the wrong key kind, a disabled key and a key over its rate limit', async () => {
    const provisioning = await clientFor(await gateway.key('provisioning'))
      .files.list()
      .catch((error: unknown) => error);
    expect(provisioning).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((provisioning as InstanceType<typeof OpenAI.APIError>).code).toBe('wrong_key_kind');
    const disabled = await clientFor(await gateway.key('model', { disabled: true }))
      .files.list()
      .catch((error: unknown) => error);
    expect(disabled).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((disabled as InstanceType<typeof OpenAI.APIError>).code).toBe('key_disabled');
    const limited = clientFor(await gateway.key('model', { rateLimitRpm: 1 }));
    await limited.files.list();
    const throttled = await limited.files.list().catch((error: unknown) => error);
    expect(throttled).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('refuses dot segments that would resolve to another upstream endpoint', async () => {
    // Raw HTTP, so no client normalizes the path before the gateway sees it.
    const rawPost = (path: string) =>
      new Promise<{ status: number; body: string }>((done, fail) => {
        const target = new URL(gateway.baseUrl);
        const call = httpRequest(
          { host: target.hostname, port: target.port, path, method: 'POST', headers: { authorization: `Bearer ${modelKey}`, 'content-type': 'application/json' } },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk.toString()));
            response.on('end', () => done({ status: response.statusCode ?? 0, body }));
          },
        );
        call.on('error', fail);
        call.end(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }));
      });
    const before = gateway.openai.requests.length;
    for (const path of ['/v1/files/../chat/completions', '/v1/files/%2e%2e/chat/completions', '/v1/responses/..%2Fmodels', '/v1/threads/./x']) {
      const response = await rawPost(path);
      expect(response.status, path).toBe(400);
      expect(response.body, path).toContain('Path segments');
    }
    expect(gateway.openai.requests.length).toBe(before);
  });

  it('answers 402 when the account has no credit, for free calls too', async () => {
    const broke = await createAccount(gateway.services.db, 'broke');
    const brokeClient = clientFor(await gateway.key('model', {}, broke.id));
    const upstreamCalls = gateway.openai.requests.length;
    for (const call of [() => brokeClient.files.list(), () => brokeClient.responses.create({ model: 'test-echo', input: 'hi' })]) {
      const refused = await call().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    }
    expect(gateway.openai.requests.length).toBe(upstreamCalls);
  });
});
