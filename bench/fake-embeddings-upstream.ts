/**
 * The embeddings upstream of the knowledge ingestion bench: `POST /v1/embeddings` in
 * OpenAI's wire format, answering at once with a 256-dimension unit vector per input,
 * seeded by a hash of its text (equal texts, equal vectors). `GET /stats` counts the calls
 * and inputs. Runs as a process of its own so its CPU is not the ingesting server's.
 */
import { createServer } from 'node:http';

const DIMENSIONS = 256;

function vectorOf(text: string): string {
  // FNV-1a of the text seeds mulberry32.
  let state = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) state = Math.imul(state ^ text.charCodeAt(index), 0x01000193) >>> 0;
  const values: number[] = [];
  for (let index = 0; index < DIMENSIONS; index += 1) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    values.push(((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5);
  }
  const norm = Math.hypot(...values);
  return `[${values.map((value) => (value / norm).toFixed(6)).join(',')}]`;
}

const stats = { calls: 0, inputs: 0 };

const server = createServer((request, response) => {
  if (request.url === '/stats') return void response.end(JSON.stringify(stats));
  const chunks: Buffer[] = [];
  request.on('data', (data: Buffer) => chunks.push(data));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string | string[] };
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    stats.calls += 1;
    stats.inputs += inputs.length;
    const tokens = Math.ceil(inputs.reduce((total, text) => total + text.length, 0) / 4);
    // Written by hand so the vectors' text is made once, not parsed back and stringified again.
    const data = inputs.map((text, index) => `{"object":"embedding","index":${index},"embedding":${vectorOf(text)}}`).join(',');
    const answer = `{"object":"list","model":${JSON.stringify(body.model)},"data":[${data}],"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`;
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    response.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}/v1` })}\n`);
});
