/**
 * The floor: fastify 5 forwarding the body with undici.request and streaming the
 * answer back, no auth, no limits, no billing. Junction is compared against this.
 */
import Fastify from 'fastify';
import { Agent, request } from 'undici';

const upstream = process.env.UPSTREAM_URL ?? '';
const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: 128 });
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

app.post('/v1/chat/completions', async (incoming, reply) => {
  const answer = await request(`${upstream}/chat/completions`, {
    method: 'POST',
    body: incoming.body as Buffer,
    headers: { 'content-type': 'application/json', authorization: 'Bearer upstream' },
    dispatcher,
  });
  reply.status(answer.statusCode).header('content-type', String(answer.headers['content-type'] ?? 'application/json'));
  return reply.send(answer.body);
});

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
