import { randomUUID } from 'node:crypto';
import { PASSTHROUGH_FAMILIES } from '../../../src/gateway/passthrough/passthrough-routes.ts';
import type { Access, Probe, RouteTable } from './tenant-route-access.ts';
import type { Tenant } from './tenant-fixtures.ts';

const MISSING_UUID = randomUUID();
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'tenant matrix' }], ...extra });
const member: Access = { kind: 'session', role: 'member' };
const admin: Access = { kind: 'session', role: 'admin' };
const modelKey: Access = { kind: 'key', kinds: ['model'] };
const provisioningKey: Access = { kind: 'key', kinds: ['provisioning'] };
const agents: Access = { kind: 'agents' };
const agentKey: Access = { kind: 'key', kinds: ['agent'] };

const keyIds = (victim: Tenant) => [victim.keys.model.id, victim.keys.provisioning.id, victim.keys.agent.id];
const userIds = (victim: Tenant) => [victim.users.owner.id, victim.users.admin.id, victim.users.member.id];
const denied = (object: string, url: string, payload?: unknown): Probe => ({ object, url, expect: 'denied', ...(payload !== undefined && { payload }) });
const scanned = (object: string, url: string, payload?: unknown): Probe => ({ object, url, expect: 'scanned', ...(payload !== undefined && { payload }) });

/** OpenAI's stateful families, passed through with every method on the family and below it. */
function passthroughRoutes(): RouteTable {
  const table: RouteTable = {};
  for (const family of PASSTHROUGH_FAMILIES) {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const write = method !== 'GET';
      table[`${method} /v1/${family}`] = { access: modelKey, baseline: { url: `/v1/${family}`, ...(write && { payload: {} }) } };
      table[`${method} /v1/${family}/*`] = { access: modelKey, baseline: { url: `/v1/${family}/tenant-matrix-missing`, ...(write && { payload: {} }) } };
    }
  }
  table['GET /v1/files/*'] = {
    access: modelKey,
    baseline: { url: '/v1/files/tenant-matrix-missing' },
    probes: (victim) => [denied('pass-through file', `/v1/files/${victim.passthrough.fileId}`), denied('pass-through file content', `/v1/files/${victim.passthrough.fileId}/content`)],
  };
  table['GET /v1/responses/*'] = {
    access: modelKey,
    baseline: { url: '/v1/responses/tenant-matrix-missing' },
    probes: (victim) => [denied('pass-through response', `/v1/responses/${victim.passthrough.responseId}`)],
  };
  return table;
}

/**
 * Every route of the app with who it serves, a harmless request, and the requests that
 * name the other account's objects. A route missing here fails the matrix by name.
 */
export const ROUTE_TABLE: RouteTable = {
  'GET /healthz': { access: { kind: 'public' }, baseline: { url: '/healthz' } },
  'GET /readyz': { access: { kind: 'public' }, baseline: { url: '/readyz' } },
  'GET /metrics': { access: { kind: 'operator' }, baseline: { url: '/metrics' } },
  'GET /openapi.json': { access: { kind: 'public' }, baseline: { url: '/openapi.json' } },
  'GET /docs': { access: { kind: 'public' }, baseline: { url: '/docs' } },
  'GET /docs/assets/*': { access: { kind: 'public' }, baseline: { url: '/docs/assets/swagger-ui.css' } },
  'GET /docs/start.js': { access: { kind: 'public' }, baseline: { url: '/docs/start.js' } },
  'GET /assets/*': { access: { kind: 'public' }, baseline: { url: '/assets/tenant-matrix-missing.js' } },
  'GET /*': { access: { kind: 'public' }, baseline: { url: '/keys' } },

  'GET /v1/key': { access: modelKey, baseline: { url: '/v1/key' } },
  'GET /v1/keys': { access: provisioningKey, baseline: { url: '/v1/keys' } },
  'POST /v1/keys': {
    access: provisioningKey,
    baseline: { url: '/v1/keys', payload: { name: 'tenant matrix' } },
    probes: (victim) => [
      denied('account, named in the body', '/v1/keys', { name: 'matrix claims account', account_id: victim.accountId }),
      denied('account, named in the body', '/v1/keys', { name: 'matrix claims account', account: victim.accountId }),
    ],
  },
  'GET /v1/keys/:id': { access: provisioningKey, baseline: { url: `/v1/keys/${MISSING_UUID}` }, probes: (victim) => keyIds(victim).map((id) => denied(`key ${id}`, `/v1/keys/${id}`)) },
  'PATCH /v1/keys/:id': {
    access: provisioningKey,
    baseline: { url: `/v1/keys/${MISSING_UUID}`, payload: { name: 'x' } },
    probes: (victim) => keyIds(victim).map((id) => denied(`key ${id}`, `/v1/keys/${id}`, { disabled: true })),
  },
  'DELETE /v1/keys/:id': { access: provisioningKey, baseline: { url: `/v1/keys/${MISSING_UUID}` }, probes: (victim) => keyIds(victim).map((id) => denied(`key ${id}`, `/v1/keys/${id}`)) },
  'GET /v1/usage': { access: provisioningKey, baseline: { url: '/v1/usage' }, probes: (victim) => [scanned('usage filtered by the other account’s key', `/v1/usage?key_id=${victim.keys.model.id}`)] },
  'GET /v1/generations/:id': { access: modelKey, baseline: { url: '/v1/generations/gen-missing' }, probes: (victim) => [denied('generation', `/v1/generations/${victim.generationId}`)] },
  'GET /v1/credits': { access: { kind: 'key', kinds: ['model', 'provisioning', 'agent'] }, baseline: { url: '/v1/credits' } },
  'POST /v1/chat/completions': { access: modelKey, baseline: { url: '/v1/chat/completions', payload: chat('openai/test-echo') } },
  'GET /v1/models': { access: modelKey, baseline: { url: '/v1/models' } },
  'GET /v1/models/*': { access: modelKey, baseline: { url: '/v1/models/openai/test-echo' } },
  'POST /v1/models/*': { access: modelKey, baseline: { url: '/v1/models/google%2Ftest-echo:generateContent', payload: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] } } },
  'POST /v1/moderations': { access: modelKey, baseline: { url: '/v1/moderations', payload: { input: 'x' } } },
  'POST /v1/messages': { access: modelKey, baseline: { url: '/v1/messages', payload: { ...chat('openai/test-echo'), max_tokens: 5 } } },
  'POST /v1/messages/count_tokens': { access: modelKey, baseline: { url: '/v1/messages/count_tokens', payload: chat('openai/test-echo') } },
  'POST /v1/embeddings': { access: modelKey, baseline: { url: '/v1/embeddings', payload: { model: 'openai/none', input: 'x' } } },
  'POST /v1/images/generations': { access: modelKey, baseline: { url: '/v1/images/generations', payload: { model: 'openai/none', prompt: 'x' } } },
  'POST /v1/audio/speech': { access: modelKey, baseline: { url: '/v1/audio/speech', payload: { model: 'openai/none', input: 'x', voice: 'alloy' } } },
  'POST /v1/audio/transcriptions': { access: modelKey, baseline: { url: '/v1/audio/transcriptions', payload: {} } },
  'POST /v1/audio/translations': { access: modelKey, baseline: { url: '/v1/audio/translations', payload: {} } },
  ...passthroughRoutes(),
  'GET /v1beta/models': { access: modelKey, baseline: { url: '/v1beta/models' } },
  'GET /v1beta/models/*': { access: modelKey, baseline: { url: '/v1beta/models/google%2Ftest-echo' } },
  'POST /v1beta/models/*': { access: modelKey, baseline: { url: '/v1beta/models/google%2Ftest-echo:generateContent', payload: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] } } },

  'GET /console/api/setup': { access: { kind: 'public' }, baseline: { url: '/console/api/setup' } },
  'POST /console/api/setup': {
    access: { kind: 'public' },
    baseline: { url: '/console/api/setup', payload: { token: 'tenant-matrix', email: 'setup@tenant.example', password: 'tenant matrix setup' } },
    baselineStatus: 403,
    anyCaller: 'a one-time link, not a credential',
  },
  'POST /console/api/set-password': {
    access: { kind: 'public' },
    baseline: { url: '/console/api/set-password', payload: { token: 'tenant-matrix', password: 'tenant matrix reset' } },
    baselineStatus: 403,
    anyCaller: 'a one-time link, not a credential',
  },
  'POST /console/api/session': { access: { kind: 'public' }, coveredElsewhere: 'sign-in: tenant-attacks.test.ts (fixation, no echo); the login rate limit is per process' },
  'DELETE /console/api/session': { access: member, baseline: { url: '/console/api/session' }, deniedCallersOnly: 'signs the caller out: tenant-attacks.test.ts ends a session this way' },
  'POST /console/api/session/account': {
    access: member,
    baseline: { url: '/console/api/session/account', payload: { account_id: MISSING_UUID } },
    probes: (victim) => [denied('account', '/console/api/session/account', { account_id: victim.accountId })],
  },
  'GET /console/api/me': { access: { kind: 'public' }, baseline: { url: '/console/api/me' } },
  'GET /console/api/invitations': { access: admin, baseline: { url: '/console/api/invitations' } },
  'POST /console/api/invitations': { access: admin, baseline: { url: '/console/api/invitations', payload: { email: `invited-${MISSING_UUID.slice(0, 8)}@tenant.example`, role: 'member' } } },
  'DELETE /console/api/invitations/:id': {
    access: admin,
    baseline: { url: `/console/api/invitations/${MISSING_UUID}` },
    probes: (victim) => [denied('invitation', `/console/api/invitations/${victim.invitation.id}`)],
  },
  'POST /console/api/invitations/preview': {
    access: { kind: 'public' },
    baseline: { url: '/console/api/invitations/preview', payload: { token: 'tenant-matrix' } },
    baselineStatus: 404,
    anyCaller: 'a one-time link, not a credential',
  },
  'POST /console/api/invitations/accept': { access: { kind: 'public' }, baseline: { url: '/console/api/invitations/accept', payload: { token: 'tenant-matrix' } }, baselineStatus: 404 },
  'GET /console/api/members': { access: member, baseline: { url: '/console/api/members' } },
  'POST /console/api/members': { access: admin, baseline: { url: '/console/api/members', payload: { email: `added-${MISSING_UUID.slice(0, 8)}@tenant.example`, role: 'member' } } },
  'PATCH /console/api/members/:userId': {
    access: admin,
    baseline: { url: `/console/api/members/${MISSING_UUID}`, payload: { role: 'member' } },
    probes: (victim) => userIds(victim).map((id) => denied(`member ${id}`, `/console/api/members/${id}`, { role: 'member' })),
  },
  'DELETE /console/api/members/:userId': {
    access: admin,
    baseline: { url: `/console/api/members/${MISSING_UUID}` },
    probes: (victim) => userIds(victim).map((id) => denied(`member ${id}`, `/console/api/members/${id}`)),
  },
  'GET /console/api/models': { access: member, baseline: { url: '/console/api/models' } },
  'GET /console/api/model-deployments': { access: member, baseline: { url: '/console/api/model-deployments' } },
  'GET /console/api/keys': {
    access: member,
    baseline: { url: '/console/api/keys' },
    probes: () => (['provisioning', 'agent'] as const).map((kind) => scanned(`${kind} key list`, `/console/api/keys?kind=${kind}`)),
  },
  'POST /console/api/keys': {
    access: admin,
    baseline: { url: '/console/api/keys', payload: { name: 'tenant matrix' } },
    probes: (victim) => [denied('account, named in the body', '/console/api/keys', { name: 'matrix claims account', account_id: victim.accountId })],
  },
  'PATCH /console/api/keys/:id': {
    access: admin,
    baseline: { url: `/console/api/keys/${MISSING_UUID}`, payload: { name: 'x' } },
    probes: (victim) => keyIds(victim).map((id) => denied(`key ${id}`, `/console/api/keys/${id}`, { disabled: true })),
  },
  'DELETE /console/api/keys/:id': { access: admin, baseline: { url: `/console/api/keys/${MISSING_UUID}` }, probes: (victim) => [denied('model key', `/console/api/keys/${victim.keys.model.id}`)] },
  'POST /console/api/provisioning-keys': { access: admin, baseline: { url: '/console/api/provisioning-keys', payload: { name: 'tenant matrix' } } },
  'DELETE /console/api/provisioning-keys/:id': {
    access: admin,
    baseline: { url: `/console/api/provisioning-keys/${MISSING_UUID}` },
    probes: (victim) => [denied('provisioning key', `/console/api/provisioning-keys/${victim.keys.provisioning.id}`)],
  },
  'POST /console/api/agent-keys': { access: admin, baseline: { url: '/console/api/agent-keys', payload: { name: 'tenant matrix' } } },
  'DELETE /console/api/agent-keys/:id': {
    access: admin,
    baseline: { url: `/console/api/agent-keys/${MISSING_UUID}` },
    probes: (victim) => [denied('agent key', `/console/api/agent-keys/${victim.keys.agent.id}`)],
  },
  'GET /console/api/knowledge': { access: member, baseline: { url: '/console/api/knowledge' } },
  'POST /console/api/knowledge/collections': {
    access: admin,
    baseline: { url: '/console/api/knowledge/collections', payload: { name: `matrix-${MISSING_UUID.slice(0, 8)}` } },
    probes: (victim) => [{ object: 'collection name', url: '/console/api/knowledge/collections', payload: { name: victim.knowledge.collection }, expect: 'own-namespace' }],
  },
  'DELETE /console/api/knowledge/collections/:name': {
    access: admin,
    baseline: { url: '/console/api/knowledge/collections/matrix-missing' },
    probes: (victim) => [denied('collection', `/console/api/knowledge/collections/${victim.knowledge.collection}`)],
  },
  'POST /console/api/knowledge/collections/:name/documents': {
    access: admin,
    baseline: { url: '/console/api/knowledge/collections/matrix-missing/documents', payload: {} },
    probes: (victim) => [denied('collection', `/console/api/knowledge/collections/${victim.knowledge.collection}/documents`, {})],
  },
  'DELETE /console/api/knowledge/collections/:name/documents/:id': {
    access: admin,
    baseline: { url: '/console/api/knowledge/collections/matrix-missing/documents/999999' },
    probes: (victim, self) => [
      denied('document', `/console/api/knowledge/collections/${victim.knowledge.collection}/documents/${victim.knowledge.documentId}`),
      denied('document through an own collection', `/console/api/knowledge/collections/${self.knowledge.collection}/documents/${victim.knowledge.documentId}`),
    ],
  },
  'GET /console/api/knowledge/search': {
    access: member,
    baseline: { url: '/console/api/knowledge/search?q=secret' },
    probes: (victim) => [
      scanned('document text', `/console/api/knowledge/search?q=${victim.knowledge.text}&collection=${victim.knowledge.collection}`),
      scanned('document text', `/console/api/knowledge/search?q=${victim.knowledge.text}`),
    ],
  },
  'GET /console/api/agent-editor-options': { access: member, baseline: { url: '/console/api/agent-editor-options' } },
  'GET /console/api/agents': { access: member, baseline: { url: '/console/api/agents' } },
  'GET /console/api/agents/:id': {
    access: member,
    baseline: { url: '/console/api/agents/matrix-missing' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}`), scanned('file agent of the same id', '/console/api/agents/file-agent')],
  },
  'PUT /console/api/agents/:id': {
    access: admin,
    baseline: { url: `/console/api/agents/matrix-${MISSING_UUID.slice(0, 8)}`, payload: { definition: { name: 'Matrix', model: 'openai/test-echo', instructions: 'matrix' } } },
    probes: (victim) => [
      denied('account, as the agent’s owner', '/console/api/agents/matrix-claims-account', {
        definition: { account: victim.accountName, name: 'Matrix', model: 'openai/test-echo', instructions: 'matrix' },
      }),
      denied('console agent, as a sub-agent', '/console/api/agents/matrix-delegates', {
        definition: { name: 'Matrix', model: 'openai/test-echo', instructions: 'matrix', agents: [victim.consoleAgent.id] },
      }),
      denied('console agent, as a handoff', '/console/api/agents/matrix-hands-off', {
        definition: { name: 'Matrix', model: 'openai/test-echo', instructions: 'matrix', handoffs: [victim.consoleAgent.id] },
      }),
      denied('collection, as the agent’s knowledge', '/console/api/agents/matrix-uses-collection', {
        definition: { name: 'Matrix', model: 'openai/test-echo', instructions: 'matrix', knowledge: [victim.knowledge.collection] },
      }),
      {
        object: 'console agent id',
        url: `/console/api/agents/${victim.consoleAgent.id}`,
        payload: { definition: { name: 'Matrix', model: 'openai/test-echo', instructions: 'matrix' } },
        expect: 'own-namespace',
      },
    ],
  },
  'DELETE /console/api/agents/:id': {
    access: admin,
    baseline: { url: '/console/api/agents/matrix-missing' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}`)],
  },
  'GET /console/api/agents/:id/export': {
    access: member,
    baseline: { url: '/console/api/agents/matrix-missing/export' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/export`), scanned('file agent of the same id', '/console/api/agents/file-agent/export')],
  },
  'POST /console/api/agents/:id/rollback': {
    access: admin,
    baseline: { url: '/console/api/agents/matrix-missing/rollback', payload: { version: 1 } },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/rollback`, { version: 1 })],
  },
  'POST /console/api/agents/:id/publish': {
    access: admin,
    baseline: { url: '/console/api/agents/matrix-missing/publish', payload: { version: 1 } },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/publish`, { version: 1 })],
  },
  'POST /console/api/agents/:id/stage': {
    access: admin,
    baseline: { url: '/console/api/agents/matrix-missing/stage', payload: { version: 2, share: 10 } },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/stage`, { version: 1, share: 10 })],
  },
  'POST /console/api/agents/:id/promote': {
    access: admin,
    baseline: { url: '/console/api/agents/matrix-missing/promote' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/promote`)],
  },
  'POST /console/api/agents/:id/abort': {
    access: admin,
    baseline: { url: '/console/api/agents/matrix-missing/abort' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/abort`)],
  },
  'GET /console/api/agents/:id/audit': {
    access: member,
    baseline: { url: '/console/api/agents/matrix-missing/audit' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/audit`)],
  },
  'GET /console/api/agents/:id/diff': {
    access: member,
    baseline: { url: '/console/api/agents/matrix-missing/diff?from=1&to=2' },
    probes: (victim) => [denied('console agent', `/console/api/agents/${victim.consoleAgent.id}/diff?from=1&to=1`)],
  },
  'GET /console/api/usage': {
    access: member,
    baseline: { url: '/console/api/usage' },
    probes: (victim) => [scanned('usage filtered by the other account’s key', `/console/api/usage?key_id=${victim.keys.model.id}`)],
  },
  'GET /console/api/usage.csv': {
    access: member,
    baseline: { url: '/console/api/usage.csv' },
    probes: (victim) => [scanned('usage filtered by the other account’s key', `/console/api/usage.csv?key_id=${victim.keys.model.id}`)],
  },
  'GET /console/api/usage.jsonl': {
    access: member,
    baseline: { url: '/console/api/usage.jsonl' },
    probes: (victim) => [scanned('usage filtered by the other account’s key', `/console/api/usage.jsonl?key_id=${victim.keys.model.id}`)],
  },
  'GET /console/api/usage/summary': {
    access: member,
    baseline: { url: '/console/api/usage/summary?group_by=key' },
    probes: (victim) => [scanned('usage grouped, filtered by the other account’s key', `/console/api/usage/summary?group_by=key&key_id=${victim.keys.model.id}`)],
  },
  'GET /console/api/usage/:id': { access: member, baseline: { url: '/console/api/usage/gen-missing' }, probes: (victim) => [denied('usage row', `/console/api/usage/${victim.generationId}`)] },
  'GET /console/api/agents/:id/conversations': {
    access: member,
    baseline: { url: '/console/api/agents/matrix-missing/conversations' },
    probes: (victim, self) => [
      scanned('conversations of the other account’s agent id', `/console/api/agents/${victim.consoleAgent.id}/conversations`),
      scanned('conversations filtered by the other account’s key', `/console/api/agents/${self.consoleAgent.id}/conversations?key_id=${victim.keys.agent.id}`),
      scanned('conversation, as the page cursor', `/console/api/agents/${self.consoleAgent.id}/conversations?cursor=${victim.conversation.id}`),
    ],
  },
  'GET /console/api/conversations/:id': {
    access: member,
    baseline: { url: '/console/api/conversations/conv_missing' },
    probes: (victim) => [
      denied('conversation', `/console/api/conversations/${victim.conversation.id}`),
      denied('playground conversation', `/console/api/conversations/${victim.playgroundConversationId}`),
    ],
  },
  'GET /console/api/datasets': { access: member, baseline: { url: '/console/api/datasets' } },
  'POST /console/api/datasets': { access: admin, baseline: { url: '/console/api/datasets', payload: { name: `matrix-${MISSING_UUID.slice(0, 8)}` } } },
  'GET /console/api/datasets/:id': {
    access: member,
    baseline: { url: '/console/api/datasets/ds_missing' },
    probes: (victim) => [denied('dataset', `/console/api/datasets/${victim.dataset.id}`), denied('dataset, by its name', `/console/api/datasets/${victim.dataset.name}`)],
  },
  'DELETE /console/api/datasets/:id': {
    access: admin,
    baseline: { url: '/console/api/datasets/ds_missing' },
    probes: (victim) => [denied('dataset', `/console/api/datasets/${victim.dataset.id}`), denied('dataset, by its name', `/console/api/datasets/${victim.dataset.name}`)],
  },
  'GET /console/api/datasets/:id/cases': {
    access: member,
    baseline: { url: '/console/api/datasets/ds_missing/cases' },
    probes: (victim, self) => [
      denied('dataset cases', `/console/api/datasets/${victim.dataset.id}/cases`),
      scanned('case, as the page cursor', `/console/api/datasets/${self.dataset.id}/cases?cursor=${victim.dataset.caseId}`),
    ],
  },
  'POST /console/api/datasets/:id/cases': {
    access: admin,
    baseline: { url: '/console/api/datasets/ds_missing/cases', payload: { input: 'tenant matrix' } },
    probes: (victim) => [denied('dataset, added to', `/console/api/datasets/${victim.dataset.id}/cases`, { input: 'tenant matrix' })],
  },
  'PATCH /console/api/datasets/:id/cases/:caseId': {
    access: admin,
    baseline: { url: '/console/api/datasets/ds_missing/cases/case_missing', payload: { reference: 'tenant matrix' } },
    probes: (victim, self) => [
      denied('case', `/console/api/datasets/${victim.dataset.id}/cases/${victim.dataset.caseId}`, { reference: 'tenant matrix' }),
      denied('case, under the caller’s own dataset', `/console/api/datasets/${self.dataset.id}/cases/${victim.dataset.caseId}`, { reference: 'tenant matrix' }),
    ],
  },
  'DELETE /console/api/datasets/:id/cases/:caseId': {
    access: admin,
    baseline: { url: '/console/api/datasets/ds_missing/cases/case_missing' },
    probes: (victim, self) => [
      denied('case', `/console/api/datasets/${victim.dataset.id}/cases/${victim.dataset.caseId}`),
      denied('case, under the caller’s own dataset', `/console/api/datasets/${self.dataset.id}/cases/${victim.dataset.caseId}`),
    ],
  },
  'POST /console/api/datasets/:id/cases/from-run': {
    access: admin,
    baseline: { url: '/console/api/datasets/ds_missing/cases/from-run', payload: { run_id: 'run_missing' } },
    probes: (victim, self) => [
      denied('stored response, taken as a case', `/console/api/datasets/${self.dataset.id}/cases/from-run`, { response_id: victim.responseId }),
      denied('background response, taken as a case', `/console/api/datasets/${self.dataset.id}/cases/from-run`, { response_id: victim.backgroundResponseId }),
      denied('conversation item, taken as a case', `/console/api/datasets/${self.dataset.id}/cases/from-run`, { item_id: victim.conversation.messageId }),
      denied('conversation item, named with its conversation', `/console/api/datasets/${self.dataset.id}/cases/from-run`, {
        conversation_id: victim.conversation.id,
        item_id: victim.conversation.messageId,
      }),
      denied('dataset, added to from the caller’s run', `/console/api/datasets/${victim.dataset.id}/cases/from-run`, { response_id: self.responseId }),
    ],
  },
  'GET /console/api/datasets/:id/export': {
    access: member,
    baseline: { url: '/console/api/datasets/ds_missing/export' },
    probes: (victim) => [denied('dataset export', `/console/api/datasets/${victim.dataset.id}/export`)],
  },
  'POST /console/api/datasets/:id/import': {
    access: admin,
    baseline: { url: '/console/api/datasets/ds_missing/import', payload: '{"input": "tenant matrix"}', headers: { 'content-type': 'application/x-ndjson' } },
    probes: (victim) => [
      { ...denied('dataset, imported into', `/console/api/datasets/${victim.dataset.id}/import`, '{"input": "tenant matrix"}'), headers: { 'content-type': 'application/x-ndjson' } },
    ],
  },
  'GET /console/api/overview': { access: member, baseline: { url: '/console/api/overview' } },
  'GET /console/api/credits': { access: member, baseline: { url: '/console/api/credits' } },
  'GET /console/api/credits/accounts': { access: { kind: 'console-operator' }, baseline: { url: '/console/api/credits/accounts' } },
  'POST /console/api/credits/grants': {
    access: { kind: 'console-operator' },
    baseline: { url: '/console/api/credits/grants', payload: { account_id: MISSING_UUID, amount: '1', currency: 'USD' } },
    probes: (victim, self) => [
      denied('account, granted credit', '/console/api/credits/grants', { account_id: victim.accountId, amount: '1', currency: 'USD' }),
      denied('own account, granted credit', '/console/api/credits/grants', { account_id: self.accountId, amount: '1', currency: 'USD' }),
    ],
  },
  'POST /console/api/evaluations': {
    access: admin,
    baseline: { url: '/console/api/evaluations', payload: { agent: 'matrix-missing', dataset: 'matrix-missing' } },
    probes: (victim, self) => [
      denied('console agent, evaluated', '/console/api/evaluations', { agent: victim.consoleAgent.id, dataset: 'matrix-missing' }),
      denied('dataset by id, evaluated', '/console/api/evaluations', { agent: self.consoleAgent.id, dataset: victim.dataset.id }),
      denied('dataset by name, evaluated', '/console/api/evaluations', { agent: self.consoleAgent.id, dataset: victim.dataset.name }),
    ],
  },
  'GET /console/api/evaluations': { access: member, baseline: { url: '/console/api/evaluations' } },
  'GET /console/api/evaluations/:id': { access: member, baseline: { url: '/console/api/evaluations/eval_missing' } },
  'POST /console/api/evaluations/:id/cancel': { access: admin, baseline: { url: '/console/api/evaluations/eval_missing/cancel' } },
  'POST /console/api/experiments': {
    access: admin,
    baseline: { url: '/console/api/experiments', payload: { agent: 'matrix-missing', dataset: 'matrix-missing' } },
    probes: (victim, self) => [
      denied('console agent, compared', '/console/api/experiments', { agent: victim.consoleAgent.id, dataset: 'matrix-missing' }),
      denied('dataset by id, compared', '/console/api/experiments', { agent: self.consoleAgent.id, dataset: victim.dataset.id }),
      denied('dataset by name, compared', '/console/api/experiments', { agent: self.consoleAgent.id, dataset: victim.dataset.name }),
    ],
  },
  'GET /console/api/experiments': { access: member, baseline: { url: '/console/api/experiments' } },
  'GET /console/api/experiments/:id': { access: member, baseline: { url: '/console/api/experiments/exp_missing' } },
  'GET /console/api/agents/:id/feedback-summary': {
    access: member,
    baseline: { url: '/console/api/agents/matrix-missing/feedback-summary' },
    probes: (victim) => [denied('console agent’s feedback', `/console/api/agents/${victim.consoleAgent.id}/feedback-summary`)],
  },
  'GET /console/api/feedback': {
    access: member,
    baseline: { url: '/console/api/feedback' },
    probes: (victim) => [scanned('feedback filtered by the other account’s agent', `/console/api/feedback?agent_id=${victim.consoleAgent.id}`)],
  },
  'GET /console/api/runs/:id/feedback': {
    access: member,
    baseline: { url: '/console/api/runs/run_missing/feedback' },
    probes: (victim) => [scanned('stored response’s feedback on its run page', `/console/api/runs/${victim.responseId}/feedback`)],
  },
  'GET /console/api/runs/:id': {
    access: member,
    baseline: { url: '/console/api/runs/run_missing' },
    probes: (victim) => [denied('usage row as a call page', `/console/api/runs/${victim.generationId}`)],
  },
  'GET /console/api/settings/run-history': { access: member, baseline: { url: '/console/api/settings/run-history' } },
  'PUT /console/api/settings/run-history': { access: admin, baseline: { url: '/console/api/settings/run-history', payload: { keep: 'content' } } },
  'POST /console/api/try/images/generations': { access: member, baseline: { url: '/console/api/try/images/generations', payload: { model: 'openai/none', prompt: 'x' } } },
  'POST /console/api/try/audio/speech': { access: member, baseline: { url: '/console/api/try/audio/speech', payload: { model: 'openai/none', input: 'x', voice: 'alloy' } } },

  'POST /agents/v1/evaluations': {
    access: agentKey,
    baseline: { url: '/agents/v1/evaluations', payload: { agent: 'matrix-missing', dataset: 'matrix-missing' } },
    probes: (victim, self) => [
      denied('console agent, evaluated', '/agents/v1/evaluations', { agent: victim.consoleAgent.id, dataset: 'matrix-missing' }),
      denied('dataset by id, evaluated', '/agents/v1/evaluations', { agent: self.consoleAgent.id, dataset: victim.dataset.id }),
      denied('dataset by name, evaluated', '/agents/v1/evaluations', { agent: self.consoleAgent.id, dataset: victim.dataset.name }),
    ],
  },
  'GET /agents/v1/evaluations/:id': { access: agentKey, baseline: { url: '/agents/v1/evaluations/eval_missing' } },
  'POST /agents/v1/evaluations/:id/cancel': { access: agentKey, baseline: { url: '/agents/v1/evaluations/eval_missing/cancel' } },
  'POST /agents/v1/experiments': {
    access: agentKey,
    baseline: { url: '/agents/v1/experiments', payload: { agent: 'matrix-missing', dataset: 'matrix-missing' } },
    probes: (victim, self) => [
      denied('console agent, compared', '/agents/v1/experiments', { agent: victim.consoleAgent.id, dataset: 'matrix-missing' }),
      denied('dataset by id, compared', '/agents/v1/experiments', { agent: self.consoleAgent.id, dataset: victim.dataset.id }),
      denied('dataset by name, compared', '/agents/v1/experiments', { agent: self.consoleAgent.id, dataset: victim.dataset.name }),
    ],
  },
  'GET /agents/v1/experiments/:id': { access: agentKey, baseline: { url: '/agents/v1/experiments/exp_missing' } },
  'GET /agents/v1/models': { access: agents, baseline: { url: '/agents/v1/models' } },
  'GET /agents/v1/models/:id': {
    access: agents,
    baseline: { url: '/agents/v1/models/matrix-missing' },
    probes: (victim) => [
      denied('console agent', `/agents/v1/models/${victim.consoleAgent.id}`),
      denied('console agent, pinned', `/agents/v1/models/${victim.consoleAgent.id}@1`),
      scanned('file agent of the same id', '/agents/v1/models/file-agent'),
    ],
  },
  'POST /agents/v1/chat/completions': {
    access: agents,
    baseline: { url: '/agents/v1/chat/completions', payload: chat('matrix-missing') },
    probes: (victim, self) => [
      denied('console agent', '/agents/v1/chat/completions', chat(victim.consoleAgent.id)),
      denied('console agent, pinned', '/agents/v1/chat/completions', chat(`${victim.consoleAgent.id}@1`)),
      denied('console agent, newest version', '/agents/v1/chat/completions', chat(`${victim.consoleAgent.id}@latest`)),
      denied('conversation', '/agents/v1/chat/completions', chat(self.consoleAgent.id, { conversation_id: victim.conversation.id })),
      denied('playground conversation', '/agents/v1/chat/completions', chat(self.consoleAgent.id, { conversation_id: victim.playgroundConversationId })),
      // In the agent key's own conversation (sessions have their own playground keys, so theirs is not found first).
      denied('message', '/agents/v1/chat/completions', chat(self.consoleAgent.id, { conversation_id: self.conversation.id, parent_message_id: victim.conversation.messageId })),
    ],
  },
  'GET /agents/v1/conversations': {
    access: agents,
    baseline: { url: '/agents/v1/conversations' },
    probes: (victim) => [scanned('conversation, as the page cursor', `/agents/v1/conversations?after=${victim.conversation.id}`)],
  },
  'GET /agents/v1/conversations/:id': {
    access: agents,
    baseline: { url: '/agents/v1/conversations/conv_missing' },
    probes: (victim) => [
      denied('conversation', `/agents/v1/conversations/${victim.conversation.id}`),
      denied('playground conversation', `/agents/v1/conversations/${victim.playgroundConversationId}`),
    ],
  },
  'DELETE /agents/v1/conversations/:id': {
    access: agents,
    baseline: { url: '/agents/v1/conversations/conv_missing' },
    probes: (victim) => [
      denied('conversation', `/agents/v1/conversations/${victim.conversation.id}`),
      denied('playground conversation', `/agents/v1/conversations/${victim.playgroundConversationId}`),
    ],
  },
  'POST /agents/v1/responses': {
    access: agents,
    baseline: { url: '/agents/v1/responses', payload: { model: 'matrix-missing', input: 'x' } },
    probes: (victim, self) => [
      denied('console agent', '/agents/v1/responses', { model: victim.consoleAgent.id, input: 'x' }),
      denied('console agent, pinned', '/agents/v1/responses', { model: `${victim.consoleAgent.id}@published`, input: 'x' }),
      denied('stored response', '/agents/v1/responses', { model: self.consoleAgent.id, input: 'x', previous_response_id: victim.responseId }),
      denied('conversation', '/agents/v1/responses', { model: self.consoleAgent.id, input: 'x', conversation: victim.conversation.id }),
    ],
  },
  'GET /agents/v1/responses/:id/input_items': {
    access: agents,
    baseline: { url: '/agents/v1/responses/resp_missing/input_items' },
    probes: (victim) => [victim.responseId, victim.backgroundResponseId].map((id) => denied('stored response', `/agents/v1/responses/${id}/input_items`)),
  },
  'POST /agents/v1/responses/:id/feedback': {
    access: agents,
    baseline: { url: '/agents/v1/responses/resp_missing/feedback', payload: { score: 'up' } },
    probes: (victim) => [victim.responseId, victim.backgroundResponseId].map((id) => denied('stored response, rated', `/agents/v1/responses/${id}/feedback`, { score: 'down' })),
  },
  'GET /agents/v1/responses/:id/feedback': {
    access: agents,
    baseline: { url: '/agents/v1/responses/resp_missing/feedback' },
    probes: (victim) => [denied('stored response’s feedback', `/agents/v1/responses/${victim.responseId}/feedback`)],
  },
  'POST /agents/v1/chat/completions/:id/feedback': {
    access: agents,
    baseline: { url: '/agents/v1/chat/completions/msg_missing/feedback', payload: { score: 'up' } },
    probes: (victim) => [denied('chat answer, rated', `/agents/v1/chat/completions/${victim.conversation.messageId}/feedback`, { score: 'down' })],
  },
  'GET /agents/v1/chat/completions/:id/feedback': {
    access: agents,
    baseline: { url: '/agents/v1/chat/completions/msg_missing/feedback' },
    probes: (victim) => [denied('chat answer’s feedback', `/agents/v1/chat/completions/${victim.conversation.messageId}/feedback`)],
  },
  'POST /agents/v1/responses/input_tokens': {
    access: agents,
    baseline: { url: '/agents/v1/responses/input_tokens', payload: { model: 'matrix-missing', input: 'x' } },
    probes: (victim, self) => [
      denied('console agent', '/agents/v1/responses/input_tokens', { model: victim.consoleAgent.id, input: 'x' }),
      denied('stored response', '/agents/v1/responses/input_tokens', { model: self.consoleAgent.id, input: 'x', previous_response_id: victim.responseId }),
    ],
  },
  'POST /agents/v1/conversations': { access: agents, baseline: { url: '/agents/v1/conversations', payload: {} } },
  'GET /agents/v1/conversations/:id/items': {
    access: agents,
    baseline: { url: '/agents/v1/conversations/conv_missing/items' },
    probes: (victim) => [denied('conversation', `/agents/v1/conversations/${victim.conversation.id}/items`)],
  },
  'POST /agents/v1/conversations/:id/items': {
    access: agents,
    baseline: { url: '/agents/v1/conversations/conv_missing/items', payload: { items: [{ role: 'user', content: 'x' }] } },
    probes: (victim) => [denied('conversation', `/agents/v1/conversations/${victim.conversation.id}/items`, { items: [{ role: 'user', content: 'x' }] })],
  },
  'GET /agents/v1/conversations/:id/items/:itemId': {
    access: agents,
    baseline: { url: '/agents/v1/conversations/conv_missing/items/msg_missing' },
    probes: (victim) => [denied('conversation item', `/agents/v1/conversations/${victim.conversation.id}/items/${victim.conversation.messageId}`)],
  },
  'DELETE /agents/v1/conversations/:id/items/:itemId': {
    access: agents,
    baseline: { url: '/agents/v1/conversations/conv_missing/items/msg_missing' },
    probes: (victim) => [denied('conversation item', `/agents/v1/conversations/${victim.conversation.id}/items/${victim.conversation.messageId}`)],
  },
  // Upgrades only; a session cookie alone never opens the socket.
  'GET /agents/v1/responses': { access: { kind: 'key', kinds: ['agent'] }, baseline: { url: '/agents/v1/responses' } },
  'POST /agents/v1/responses/compact': {
    access: agents,
    baseline: { url: '/agents/v1/responses/compact', payload: { model: 'matrix-missing', input: 'x' } },
    probes: (victim, self) => [
      denied('console agent', '/agents/v1/responses/compact', { model: victim.consoleAgent.id, input: 'x' }),
      denied('stored response', '/agents/v1/responses/compact', { model: self.consoleAgent.id, previous_response_id: victim.responseId }),
    ],
  },
  'GET /agents/v1/responses/:id': {
    access: agents,
    baseline: { url: '/agents/v1/responses/resp_missing' },
    probes: (victim) => [
      denied('stored response', `/agents/v1/responses/${victim.responseId}`),
      denied('stored response, replayed', `/agents/v1/responses/${victim.responseId}?stream=true`),
      denied('background response', `/agents/v1/responses/${victim.backgroundResponseId}`),
      denied('background response, replayed', `/agents/v1/responses/${victim.backgroundResponseId}?stream=true&starting_after=-1`),
    ],
  },
  'DELETE /agents/v1/responses/:id': {
    access: agents,
    baseline: { url: '/agents/v1/responses/resp_missing' },
    probes: (victim) => [victim.responseId, victim.backgroundResponseId].map((id) => denied('stored response', `/agents/v1/responses/${id}`)),
  },
  'POST /agents/v1/responses/:id/cancel': {
    access: agents,
    baseline: { url: '/agents/v1/responses/resp_missing/cancel', payload: {} },
    probes: (victim) => [
      denied('stored response', `/agents/v1/responses/${victim.responseId}/cancel`, {}),
      denied('background response', `/agents/v1/responses/${victim.backgroundResponseId}/cancel`, {}),
    ],
  },
};
