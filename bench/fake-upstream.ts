/**
 * The upstream every benchmark target talks to: a minimal OpenAI-shaped server that
 * answers at once, so what is measured is the proxy in front of it. A streamed call to
 * the model `bench-hold` sends its first chunk and then waits until `POST /release`
 * (`GET /held` counts the waiting ones): how the memory bench keeps 1,000 streams open.
 */
import { createServer, type ServerResponse } from 'node:http';

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the benchmark upstream.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
});
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const stream =
  chunk({ role: 'assistant', content: '' }) +
  ['Hello', ' from', ' the', ' benchmark', ' upstream', '.'].map((word) => chunk({ content: word })).join('') +
  chunk({}, 'stop') +
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } })}\n\n` +
  'data: [DONE]\n\n';

const held = new Set<ServerResponse>();

const server = createServer((request, response) => {
  if (request.url === '/held') return void response.end(JSON.stringify({ held: held.size }));
  if (request.url === '/release') {
    for (const waiting of held) waiting.end(stream);
    held.clear();
    return void response.end('{}');
  }
  const chunks: Buffer[] = [];
  request.on('data', (data: Buffer) => chunks.push(data));
  request.on('end', () => {
    const streamed = Buffer.concat(chunks).includes('"stream":true');
    if (streamed && Buffer.concat(chunks).includes('"model":"bench-hold"')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', content: 'Holding' }));
      held.add(response);
      response.on('close', () => held.delete(response));
    } else if (streamed) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(stream);
    } else {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      response.end(completion);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}/v1` })}\n`);
});
