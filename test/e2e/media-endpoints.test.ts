import { request as httpRequest } from 'node:http';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import type { MultipartBody } from '../support/fake-openai-upstream.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

let gateway: GatewayHarness;
let client: OpenAI;
let modelKey: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  modelKey = await gateway.key('model');
  client = new OpenAI({ apiKey: modelKey, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
});
afterAll(async () => gateway.close());

const post = (path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${gateway.baseUrl}/v1${path}`, { method: 'POST', ...init, headers: { authorization: `Bearer ${init.key ?? modelKey}`, ...init.headers } });
const lastUpstream = () => gateway.openai.requests.at(-1);

/**
 * A POST that declares `headers['content-length']` but sends only `head`, then waits:
 * it resolves only if the server answers without reading the body.
 */
function declaredButWithheld(path: string, headers: Record<string, string>, head: Buffer): Promise<{ status: number; body: string }> {
  const url = new URL(`${gateway.baseUrl}/v1${path}`);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${modelKey}`, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        request.destroy();
      });
    });
    request.on('error', reject);
    request.write(head);
  });
}
/** What the fake's embedding is for `text` (see fake-openai-media.ts). */
const fakeVector = (text: string, dimensions = 4) => Array.from({ length: dimensions }, (_, k) => (text.charCodeAt(k % text.length) % 10) / 10);
/** A WAV-sized payload: the fake says its duration is bytes / 32,000 seconds. */
const audio = (bytes: number) => toFile(Buffer.alloc(bytes, 1), 'speech.wav', { type: 'audio/wav' });

describe('embeddings', () => {
  it('answers floats when asked, in OpenAI shape, billed per input token', async () => {
    const response = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: ['hello', 'world'], encoding_format: 'float' });
    expect(response.object).toBe('list');
    expect(response.model).toBe('openai/text-embedding-3-small');
    expect(response.data.map((item) => item.embedding)).toEqual([fakeVector('hello'), fakeVector('world')]);
    expect(response.data.map((item) => item.index)).toEqual([0, 1]);
    // ceil(10 characters / 4) tokens at $0.02/M, rounded up to a whole µUSD.
    expect(response.usage).toMatchObject({ prompt_tokens: 3, total_tokens: 3, cost: 0.000001 });
    expect(lastUpstream()?.body as { model: string; encoding_format: string }).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'float' });
  });

  it('answers little-endian float32 base64, the official client default, which it decodes', async () => {
    const decoded = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'gateway', dimensions: 6 });
    expect(decoded.data[0]?.embedding).toEqual(Array.from(new Float32Array(fakeVector('gateway', 6))));

    const raw = await post('/embeddings', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'gateway', encoding_format: 'base64' }),
    });
    const body = (await raw.json()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(body.data[0]?.embedding ?? '', 'base64');
    expect(Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4))).toEqual(Array.from(new Float32Array(fakeVector('gateway'))));
  });

  it('embeds with a Gemini model through the same endpoint', async () => {
    const response = await client.embeddings.create({ model: 'google/gemini-embedding-001', input: ['one', 'two', 'three'], dimensions: 5, encoding_format: 'float' });
    expect(response.data).toHaveLength(3);
    expect(response.data.every((item) => item.embedding.length === 5)).toBe(true);
    expect(response.model).toBe('google/gemini-embedding-001');
    // Gemini reports no tokens: the adapter estimates ceil(characters / 4) per input.
    expect(response.usage.prompt_tokens).toBe(1 + 1 + 2);
  });

  it('bills Chinese, Japanese and Korean input to Gemini at one token a character, not a quarter', async () => {
    // 9 Han characters, 11 kana and kanji, 6 Hangul syllables and 2 spaces: characters / 4 would bill 3 + 3 + 2.
    const input = ['退货政策的具体规定', '返品ポリシーについての', '환불 정책 안내'];
    const response = await client.embeddings.create({ model: 'google/gemini-embedding-001', input, dimensions: 5, encoding_format: 'float' });
    expect(response.usage.prompt_tokens).toBe(9 + 11 + (6 + 1));
  });

  it('refuses token-id input with a 400 naming input', async () => {
    await expect(client.embeddings.create({ model: 'openai/text-embedding-3-small', input: [[1, 2, 3]] })).rejects.toMatchObject({ status: 400, param: 'input' });
  });
});

describe('images', () => {
  it('bills dall-e-3 per image by size and quality', async () => {
    const standard = await client.images.generate({ model: 'openai/dall-e-3', prompt: 'a lighthouse' });
    expect(standard.data?.[0]?.url).toBe('https://images.fake.test/0.png');
    expect(standard.data?.[0]?.revised_prompt).toBe('A picture of a lighthouse');
    expect((standard.usage as unknown as { cost: number }).cost).toBe(0.04);

    const hd = await client.images.generate({ model: 'openai/dall-e-3', prompt: 'a lighthouse', size: '1792x1024', quality: 'hd', style: 'natural' });
    expect((hd.usage as unknown as { cost: number }).cost).toBe(0.12);
    expect(lastUpstream()?.body).toMatchObject({ model: 'dall-e-3', n: 1, size: '1792x1024', quality: 'hd', style: 'natural' });
  });

  it("refuses what the model's media params forbid, before calling upstream", async () => {
    const before = gateway.openai.requests.length;
    await expect(client.images.generate({ model: 'openai/dall-e-3', prompt: 'two foxes', n: 2 })).rejects.toMatchObject({ status: 400, param: 'n' });
    await expect(client.images.generate({ model: 'openai/dall-e-3', prompt: 'fox', size: '256x256' })).rejects.toMatchObject({ status: 400, param: 'size' });
    await expect(client.images.generate({ model: 'openai/gpt-image-1', prompt: 'fox', style: 'vivid' })).rejects.toMatchObject({ status: 400, param: 'style' });
    expect(gateway.openai.requests.length).toBe(before);
  });

  it('bills token-reporting image models by tokens and returns their usage', async () => {
    const response = await client.images.generate({ model: 'openai/gpt-image-1', prompt: 'a red fox', quality: 'low' });
    expect(response.data?.[0]?.b64_json).toBeTruthy();
    expect(response.output_format).toBe('png');
    // 3 input tokens at $5/M + 100 output tokens at $40/M.
    expect(response.usage).toMatchObject({ input_tokens: 3, output_tokens: 100, total_tokens: 103, cost: 0.004015 });
  });
});

describe('moderations', () => {
  it('is free, defaults the model, and is logged', async () => {
    const response = await client.moderations.create({ input: ['a calm day', 'plan the attack'] });
    expect(response.model).toBe('openai/omni-moderation-latest');
    expect(response.results.map((result) => result.flagged)).toEqual([false, true]);
    expect(response.results[1]?.categories.violence).toBe(true);
  });
});

describe('speech', () => {
  it('streams the upstream audio bytes with its content type, billed per character', async () => {
    const response = await client.audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input: 'Hello world' });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('FAKEAUDIO:alloy:Hello world');

    const wav = await client.audio.speech.create({ model: 'openai/tts-1', voice: 'nova', input: 'Grüße', response_format: 'wav', speed: 1.5 });
    expect(wav.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await wav.arrayBuffer()).toString()).toBe('FAKEAUDIO:nova:Grüße');
    expect(lastUpstream()?.body).toMatchObject({ model: 'tts-1', voice: 'nova', response_format: 'wav', speed: 1.5 });
  });

  it('refuses an unknown voice for the model', async () => {
    await expect(client.audio.speech.create({ model: 'openai/tts-1', voice: 'marin', input: 'x' })).rejects.toMatchObject({ status: 400, param: 'voice' });
  });

  it('passes a custom voice object on to the provider, still checking the other parameters', async () => {
    const response = await client.audio.speech.create({ model: 'openai/gpt-4o-mini-tts', voice: { id: 'voice_1234' }, input: 'My own voice', instructions: 'Warmly.' });
    expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('FAKEAUDIO:voice_1234:My own voice');
    expect(lastUpstream()?.body).toMatchObject({ model: 'gpt-4o-mini-tts', voice: { id: 'voice_1234' }, instructions: 'Warmly.' });
    await expect(client.audio.speech.create({ model: 'openai/tts-1', voice: { id: 'voice_1234' }, input: 'x', speed: 9 })).rejects.toMatchObject({ status: 400, param: 'speed' });
  });
});

describe('transcription and translation', () => {
  it('uploads multipart and bills the duration the upstream reports', async () => {
    const json = await client.audio.transcriptions.create({ model: 'openai/whisper-1', file: await audio(48_000), language: 'en' });
    expect(json.text).toBe('Fake transcript of speech.wav.');
    const upstream = lastUpstream()?.body as MultipartBody;
    expect(upstream.fields).toMatchObject({ model: 'whisper-1', language: 'en' });
    expect(upstream.files[0]).toMatchObject({ field: 'file', filename: 'speech.wav', size: 48_000 });

    const verbose = await client.audio.transcriptions.create({ model: 'openai/whisper-1', file: await audio(48_000), response_format: 'verbose_json', timestamp_granularities: ['segment'] });
    expect(verbose.duration).toBe(1.5);
    expect((lastUpstream()?.body as MultipartBody).fields['timestamp_granularities[]']).toBe('segment');

    // Both granularities, as the client sends them: one `timestamp_granularities[]` part each.
    await client.audio.transcriptions.create({ model: 'openai/whisper-1', file: await audio(48_000), response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] });
    expect((lastUpstream()?.body as MultipartBody).values['timestamp_granularities[]']).toEqual(['word', 'segment']);
  });

  it('renders text, srt and vtt from a JSON answer it asked the upstream for', async () => {
    const text = await client.audio.transcriptions.create({ model: 'openai/whisper-1', file: await audio(48_000), response_format: 'text' });
    expect(text).toBe('Fake transcript of speech.wav.\n');
    expect((lastUpstream()?.body as MultipartBody).fields['response_format']).toBe('verbose_json');

    const srt = await client.audio.transcriptions.create({ model: 'openai/whisper-1', file: await audio(48_000), response_format: 'srt' });
    expect(srt).toBe('1\n00:00:00,000 --> 00:00:01,500\nFake transcript of speech.wav.\n\n');
    const vtt = await client.audio.translations.create({ model: 'openai/whisper-1', file: await audio(48_000), response_format: 'vtt' });
    expect(vtt).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nFake transcript of speech.wav.\n\n');
    expect(lastUpstream()?.path).toBe('/v1/audio/translations');

    // A model without verbose_json is asked for json, which carries its token usage.
    const tokens = await client.audio.transcriptions.create({ model: 'openai/gpt-4o-mini-transcribe', file: await audio(48_000), response_format: 'text' });
    expect(tokens).toBe('Fake transcript of speech.wav.\n');
    expect((lastUpstream()?.body as MultipartBody).fields['response_format']).toBe('json');
    await gateway.settle();
    const row = await gateway.services.db.query<{ cost_micros: string | number; input_tokens: number }>(
      "SELECT cost_micros, input_tokens FROM usage_log WHERE upstream_model = 'gpt-4o-mini-transcribe'",
    );
    // 48 audio tokens at $3/M + 4 output tokens at $5/M.
    expect(row.rows.map((entry) => [Number(entry.cost_micros), entry.input_tokens])).toEqual([[164, 48]]);
  });

  it('translates to English through the same route code', async () => {
    const translation = await client.audio.translations.create({ model: 'openai/whisper-1', file: await audio(64_000) });
    expect(translation.text).toBe('Fake transcript of speech.wav.');
    await expect(client.audio.translations.create({ model: 'openai/whisper-1', file: await audio(100), ...({ language: 'de' } as object) })).rejects.toMatchObject({ status: 400, param: 'language' });
  });

  it('refuses parameters the model does not take and a missing file', async () => {
    await expect(client.audio.transcriptions.create({ model: 'openai/gpt-4o-mini-transcribe', file: await audio(100), response_format: 'srt' })).rejects.toMatchObject({
      status: 400,
      param: 'response_format',
    });
    const form = new FormData();
    form.set('model', 'openai/whisper-1');
    const response = await post('/audio/transcriptions', { body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('file');
  });
});

describe('limits and key kinds', () => {
  const boundary = 'junction-test-boundary';
  const formHead = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nopenai/whisper-1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const multipartType = { 'content-type': `multipart/form-data; boundary=${boundary}` };

  it('413s an audio upload over 25 MB at once when its length is declared', async () => {
    // Only the form's head is ever sent: an answer proves the server read no body (no timer involved).
    const answer = await declaredButWithheld('/audio/transcriptions', { ...multipartType, 'content-length': String(formHead.length + 27 * 1024 * 1024) }, formHead);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('413s a streamed audio upload as soon as it passes 25 MB, without waiting for the rest', async () => {
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 1);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(formHead);
      },
      // Sends 26 MB of file and then never ends: only a server that stops at the limit answers.
      pull(controller) {
        if (sent >= 26) return new Promise(() => undefined);
        sent += 1;
        controller.enqueue(chunk);
        return undefined;
      },
    });
    const controller = new AbortController();
    const response = await post('/audio/transcriptions', { headers: multipartType, body: stream, signal: controller.signal, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    controller.abort();
  });

  it('413s an embeddings body over 50 MB at once when its length is declared', async () => {
    const head = Buffer.from('{"model": "openai/text-embedding-3-small", "input": "aaaa');
    const answer = await declaredButWithheld('/embeddings', { 'content-type': 'application/json', 'content-length': String(51 * 1024 * 1024) }, head);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('403s every media endpoint for a non-model key', async () => {
    const provisioning = await gateway.key('provisioning');
    const json = { 'content-type': 'application/json' };
    const form = new FormData();
    form.set('model', 'openai/whisper-1');
    form.set('file', new Blob([Buffer.alloc(10)], { type: 'audio/wav' }), 'a.wav');
    const calls: Array<[string, RequestInit]> = [
      ['/embeddings', { headers: json, body: JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'x' }) }],
      ['/images/generations', { headers: json, body: JSON.stringify({ model: 'openai/dall-e-3', prompt: 'x' }) }],
      ['/moderations', { headers: json, body: JSON.stringify({ input: 'x' }) }],
      ['/audio/speech', { headers: json, body: JSON.stringify({ model: 'openai/tts-1', voice: 'alloy', input: 'x' }) }],
      ['/audio/transcriptions', { body: form }],
      ['/audio/translations', { body: form }],
    ];
    for (const [path, init] of calls) {
      const response = await post(path, { ...init, key: provisioning });
      expect(response.status, path).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('wrong_key_kind');
    }
  });
});

describe('billing', () => {
  it('logs one row per endpoint with its cost and moves the key spend', async () => {
    const key = await gateway.key('model');
    const own = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    await own.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'hello', encoding_format: 'float' });
    await own.images.generate({ model: 'openai/dall-e-3', prompt: 'a lighthouse', quality: 'hd' });
    await own.moderations.create({ model: 'openai/omni-moderation-latest', input: 'hello' });
    await (await own.audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input: 'Hello world' })).arrayBuffer();
    await own.audio.transcriptions.create({ model: 'openai/whisper-1', file: await audio(48_000), response_format: 'text' });
    await own.audio.translations.create({ model: 'openai/whisper-1', file: await audio(64_000), response_format: 'verbose_json' });
    await gateway.settle();

    const me = (await (await fetch(`${gateway.baseUrl}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string; usage: number } };
    const rows = await gateway.services.db.query<{ endpoint: string; status: string; cost_micros: string | number; units: Record<string, number> | null }>(
      'SELECT endpoint, status, cost_micros, units FROM usage_log WHERE key_id = $1 ORDER BY created_at',
      [me.data.id],
    );
    const costs = Object.fromEntries(rows.rows.map((row) => [row.endpoint, Number(row.cost_micros)]));
    expect(rows.rows.every((row) => row.status === 'success')).toBe(true);
    expect(costs).toEqual({
      embeddings: 1, // 2 tokens at $0.02/M, rounded up
      'images.generations': 80_000, // hd 1024x1024
      moderations: 0,
      'audio.speech': 165, // 11 characters at $15/M
      'audio.transcriptions': 150, // 1.5 s at $0.006/min, from the verbose_json we asked for
      'audio.translations': 200, // 2 s
    });
    expect(rows.rows.find((row) => row.endpoint === 'audio.transcriptions')?.units).toEqual({ audio_seconds: 1.5 });
    expect(me.data.usage).toBeCloseTo((1 + 80_000 + 165 + 150 + 200) / 1e6, 9);
  });
});
