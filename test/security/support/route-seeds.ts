/**
 * Well-formed requests the fuzz starts from, so a hostile value lands one field deep in
 * a body the route would otherwise accept (and reaches the handler, the pipeline and the
 * store). Routes without a seed here are still fuzzed, from the generic bodies below.
 */

const chatMessages = [{ role: 'user', content: 'hello fuzz' }];

const SEED_BODIES: Record<string, readonly unknown[]> = {
  'POST /v1/chat/completions': [
    { model: 'openai/test-echo', messages: chatMessages, max_tokens: 32, metadata: { tag: 'fuzz' }, user: 'fuzz-user' },
    {
      model: 'openai/test-echo',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      stream: true,
      stream_options: { include_usage: true },
    },
    {
      model: 'openai/test-tool',
      messages: chatMessages,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }],
    },
  ],
  'POST /v1/messages': [
    { model: 'openai/test-echo', max_tokens: 32, messages: chatMessages, system: 'be brief', metadata: { user_id: 'fuzz' } },
    { model: 'anthropic/claude-3-5-haiku-latest', max_tokens: 32, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: true },
  ],
  'POST /v1/messages/count_tokens': [{ model: 'anthropic/claude-3-5-haiku-latest', messages: chatMessages }],
  'POST /v1/embeddings': [{ model: 'openai/text-embedding-3-small', input: ['hello', 'fuzz'] }],
  'POST /v1/images/generations': [{ model: 'openai/gpt-image-1', prompt: 'a fuzz', n: 1, size: '1024x1024' }],
  'POST /v1/audio/speech': [{ model: 'openai/tts-1', input: 'hello', voice: 'alloy' }],
  'POST /v1/moderations': [{ input: 'hello', model: 'openai/omni-moderation-latest' }],
  'POST /v1/keys': [{ name: 'fuzz key', daily_limit_usd: 1, allowed_models: ['openai/test-echo'], expires_at: '2030-01-01T00:00:00Z' }],
  'PATCH /v1/keys/:id': [{ name: 'renamed', disabled: true }],
  'POST /v1/responses': [{ model: 'openai/test-echo', input: 'hello' }],
  'POST /v1beta/models/*': [{ contents: [{ role: 'user', parts: [{ text: 'hello' }] }], generationConfig: { maxOutputTokens: 32 } }, { content: { parts: [{ text: 'hello' }] } }],
  'POST /agents/v1/chat/completions': [
    { model: 'echo', messages: chatMessages, metadata: { tag: 'fuzz' } },
    { model: 'echo', messages: chatMessages, stream: true, conversation_id: 'conv_fuzz', parent_message_id: 'msg_fuzz' },
    { model: 'helper', messages: [{ role: 'user', content: 'shout this' }] },
  ],
  'POST /agents/v1/responses': [
    { model: 'echo', input: 'hello', metadata: { tag: 'fuzz' }, store: true },
    { model: 'echo', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], stream: true, instructions: 'short' },
    { model: 'echo', input: 'again', previous_response_id: 'resp_fuzz', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }] },
  ],
  'POST /agents/v1/responses/compact': [{ model: 'echo', input: [{ role: 'user', content: 'hi' }] }],
  'POST /agents/v1/responses/:id/cancel': [{}],
  'POST /console/api/setup': [{ token: 'fuzz-token', email: 'fuzz@example.com', password: 'long enough password' }],
  'POST /console/api/set-password': [{ token: 'fuzz-token', password: 'long enough password' }],
  'POST /console/api/session': [{ email: 'nobody@example.com', password: 'not the password' }],
  'POST /console/api/session/account': [{ account_id: 'acct_fuzz' }],
  'POST /console/api/members': [{ email: 'invitee@example.com', role: 'member' }],
  'PATCH /console/api/members/:userId': [{ role: 'admin' }],
  'POST /console/api/keys': [{ name: 'console fuzz', monthly_limit_usd: '2.5' }],
  'PATCH /console/api/keys/:id': [{ name: 'renamed', description: 'd' }],
  'POST /console/api/provisioning-keys': [{ name: 'prov fuzz', expires_at: '2030-01-01T00:00:00Z' }],
  'POST /console/api/agent-keys': [{ name: 'agent fuzz' }],
  'PUT /console/api/agents/:id': [
    { definition: { name: 'Fuzz', model: 'openai/test-echo', instructions: 'Repeat.' }, change_note: 'first' },
    { definition: { name: 'Fuzz', model: 'openai/test-echo', instructions: 'Repeat.', tools: [], max_steps: 3 }, change_note: null },
  ],
  'POST /console/api/agents/:id/rollback': [{ version: 1 }],
  'POST /console/api/knowledge/collections': [{ name: 'fuzz-docs' }],
  'POST /console/api/try/images/generations': [{ model: 'openai/gpt-image-1', prompt: 'a fuzz' }],
  'POST /console/api/try/audio/speech': [{ model: 'openai/tts-1', input: 'hello', voice: 'alloy' }],
};

/** Bodies for routes without a seed: the common shapes of this API's bodies. */
const GENERIC_BODIES: readonly unknown[] = [{}, { model: 'openai/test-echo', input: 'hello' }, { model: 'openai/test-echo', messages: chatMessages }, { name: 'fuzz' }];

/** Path parameter values that look real (a wildcard gets a route-fitting tail). */
const WILDCARD_SEEDS: Record<string, readonly string[]> = {
  '/v1beta/models/*': ['openai%2Ftest-echo:generateContent', 'google%2Fgemini-2.5-flash:streamGenerateContent', 'openai%2Ftest-echo:countTokens', 'google%2Fgemini-2.5-flash:embedContent'],
  '/v1/models/*': ['openai/test-echo', 'openai%2Ftest-echo'],
};
const PARAM_SEEDS: Record<string, readonly string[]> = {
  id: ['fuzz-id', 'resp_0123456789abcdef', 'gen-0123', 'echo'],
  userId: ['user_fuzz'],
  name: ['fuzz-docs'],
};

export function seedBodies(method: string, path: string): readonly unknown[] {
  return SEED_BODIES[`${method} ${path}`] ?? GENERIC_BODIES;
}

export function seedParam(path: string, name: string): readonly string[] {
  if (name === '*') return WILDCARD_SEEDS[path] ?? ['fuzz', 'fuzz/deeper'];
  return PARAM_SEEDS[name] ?? ['fuzz'];
}
