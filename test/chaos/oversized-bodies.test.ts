import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';

/**
 * Bodies over an endpoint's limit get the 413 answer every time: the server reads and
 * discards the rest instead of closing while the client still sends (which the client
 * sees as EPIPE/ECONNRESET, and official SDKs then retry the whole upload).
 */
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  key = await gateway.key('model');
});
afterAll(async () => gateway?.close());

/**
 * One upload through node:http with a content-length, as the official SDKs send it:
 * the status, or the socket error the client saw while still writing.
 */
function send(path: string, body: Buffer, contentType: string): Promise<string> {
  const url = new URL(path, gateway.baseUrl);
  return new Promise((resolve) => {
    let status = 'no answer';
    let failure: string | undefined;
    const request = httpRequest(
      { host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers: { ...bearer(key), 'content-type': contentType, 'content-length': body.length } },
      (response) => {
        response.resume();
        response.on('end', () => {
          status = String(response.statusCode);
        });
      },
    );
    // A socket error while still sending counts even after the answer arrived: the SDK sees it.
    request.on('error', (error: NodeJS.ErrnoException) => {
      failure = `error: ${error.code ?? error.message}`;
    });
    request.on('close', () => resolve(failure ?? status));
    request.end(body);
  });
}

function multipartAudio(size: number): { body: Buffer; contentType: string } {
  const boundary = '----junction-chaos';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nopenai/whisper-1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, Buffer.alloc(size), tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('oversized bodies', () => {
  const json = Buffer.alloc(51 * 1024 * 1024, 0x20);
  json[0] = 0x7b;

  it.each(['/v1/chat/completions', '/v1/embeddings'])('answers 413 to 20 of 20 51 MB bodies on %s', async (path) => {
    const outcomes: string[] = [];
    for (let index = 0; index < 20; index += 1) outcomes.push(await send(path, json, 'application/json'));
    const answered = outcomes.filter((outcome) => outcome === '413').length;
    console.log(`[chaos] 51 MB to ${path}: 413 ${answered}/20 (${[...new Set(outcomes)].join(', ')})`);
    expect(answered).toBe(20);
  });

  it('answers 413 to 20 of 20 51 MB bodies sent chunked (no content-length)', async () => {
    const outcomes: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < json.length; offset += 1024 * 1024) controller.enqueue(json.subarray(offset, offset + 1024 * 1024));
          controller.close();
        },
      });
      try {
        const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...bearer(key), 'content-type': 'application/json' },
          body,
          duplex: 'half',
        } as RequestInit);
        await response.arrayBuffer();
        outcomes.push(String(response.status));
      } catch (error) {
        outcomes.push(`error: ${(error as { cause?: { code?: string } }).cause?.code ?? String(error)}`);
      }
    }
    const answered = outcomes.filter((outcome) => outcome === '413').length;
    console.log(`[chaos] 51 MB chunked to /v1/chat/completions: 413 ${answered}/20 (${[...new Set(outcomes)].join(', ')})`);
    expect(answered).toBe(20);
  });

  it('answers 413 to 26 MB transcription uploads', async () => {
    const outcomes: string[] = [];
    const upload = multipartAudio(26 * 1024 * 1024);
    for (let index = 0; index < 5; index += 1) outcomes.push(await send('/v1/audio/transcriptions', upload.body, upload.contentType));
    const answered = outcomes.filter((outcome) => outcome === '413').length;
    console.log(`[chaos] 26 MB transcription uploads: 413 ${answered}/5 (${[...new Set(outcomes)].join(', ')})`);
    expect(answered).toBe(5);
  });
});
