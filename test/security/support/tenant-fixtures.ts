import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { Role } from '../../../src/console/contract/session.ts';
import type { KeyKind } from '../../../src/keys/key-format.ts';
import { SESSION_COOKIE } from '../../../src/console/cookies.ts';
import { hashPassword } from '../../../src/console/password-hash.ts';
import { createSession } from '../../../src/console/session-repository.ts';
import { addMembership, upsertUser } from '../../../src/console/user-repository.ts';
import { type ConsoleSession, sessionFrom } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { multipartBody } from './tenant-multipart-body.ts';

export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];
export const KEY_KINDS: readonly KeyKind[] = ['model', 'provisioning', 'agent'];
export const PASSWORD = 'tenant matrix password 42';

/** The HMAC secret of API keys: the operator's, never shown to anyone. */
export const SERVER_KEY_SECRET = `server-key-secret-${randomBytes(8).toString('hex')}`;

export type TenantUser = { id: string; email: string; session: ConsoleSession };
export type TenantKey = { id: string; plain: string; name: string; label: string };

/** One account with a person of each role, a key of each kind and one of every object the API stores. */
export type Tenant = {
  label: 'A' | 'B';
  accountId: string;
  accountName: string;
  users: Record<Role, TenantUser>;
  keys: Record<KeyKind, TenantKey>;
  /** An open invitation (its link is not kept: only the person invited would have it). */
  invitation: { id: string; email: string };
  consoleAgent: { id: string; name: string; instructions: string };
  fileAgent: { id: string; name: string; instructions: string };
  knowledge: { collection: string; documentId: number; path: string; text: string };
  generationId: string;
  conversation: { id: string; messageId: string };
  responseId: string;
  /** Made with `background: true`: a durable run as well as a stored response. */
  backgroundResponseId: string;
  playgroundConversationId: string;
  passthrough: { fileId: string; responseId: string };
  /** A dataset with a case written by hand and one taken from the stored response. */
  dataset: { id: string; name: string; caseId: string };
  /** Strings only this account may ever see (ids, names, emails, key labels, texts). */
  markers: string[];
};

export type TenantWorld = { gateway: GatewayHarness; a: Tenant; b: Tenant; root: string; close(): Promise<void> };

let hashed: Promise<string> | undefined;
const passwordHash = (): Promise<string> => (hashed ??= hashPassword(PASSWORD));

const tag = (label: string, what: string) => `${what}-${label.toLowerCase()}-${randomBytes(5).toString('hex')}`;

function ok<T>(response: LightMyRequestResponse, what: string): T {
  if (response.statusCode >= 300) throw new Error(`fixture step "${what}" failed: ${response.statusCode} ${response.body.slice(0, 400)}`);
  return response.json<T>();
}

/**
 * Two accounts, A and B, on one gateway whose providers are fakes on 127.0.0.1, each
 * with owner, admin and member signed in to the console, and made through the public
 * routes (the way a tenant would): keys of the three kinds, a console agent and a file
 * agent, an uploaded knowledge document, a gateway call (usage row), an Agents API
 * conversation and stored response, a playground run and pass-through objects.
 */
export async function startTenantWorld(): Promise<TenantWorld> {
  const root = mkdtempSync(join(tmpdir(), 'junction-tenants-'));
  const agentsDir = join(root, 'agents');
  mkdirSync(agentsDir, { recursive: true });
  mkdirSync(join(root, 'tools'));
  mkdirSync(join(root, 'knowledge'));
  const names = { A: tag('A', 'account'), B: tag('B', 'account') };
  const fileAgents = {
    A: { id: 'file-agent', name: tag('A', 'file-agent-name'), instructions: tag('A', 'file-agent-instructions') },
    B: { id: 'file-agent', name: tag('B', 'file-agent-name'), instructions: tag('B', 'file-agent-instructions') },
  };
  for (const label of ['A', 'B'] as const) {
    mkdirSync(join(agentsDir, names[label]));
    const agent = fileAgents[label];
    writeFileSync(join(agentsDir, names[label], `${agent.id}.yaml`), `account: ${names[label]}\nname: ${agent.name}\nmodel: openai/test-echo\ninstructions: ${agent.instructions}\n`);
  }
  const gateway = await startGateway({
    JUNCTION_KEY_SECRET: SERVER_KEY_SECRET,
    JUNCTION_AGENTS_DIR: agentsDir,
    JUNCTION_TOOLS_DIR: join(root, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(root, 'knowledge'),
  });
  try {
    const a = await makeTenant(gateway, 'A', names.A, fileAgents.A);
    const b = await makeTenant(gateway, 'B', names.B, fileAgents.B);
    await gateway.settle();
    return {
      gateway,
      a,
      b,
      root,
      async close() {
        await gateway.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await gateway.close();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

async function makeTenant(gateway: GatewayHarness, label: 'A' | 'B', accountName: string, fileAgent: Tenant['fileAgent']): Promise<Tenant> {
  const { app, services } = gateway;
  const account = (await runAdminCommand(services, { command: 'accounts.create', name: accountName })) as { data: { id: string } };
  const accountId = account.data.id;
  await runAdminCommand(services, { command: 'credits.grant', account: accountId, amount: '5', currency: 'USD' });

  const users = {} as Record<Role, TenantUser>;
  for (const role of ROLES) {
    const email = `${tag(label, role)}@tenant-${label.toLowerCase()}.example`;
    // What `junction users create` and sign-in do, with the password hashed once for all six people (scrypt is slow on purpose).
    const user = await upsertUser(services.db, email, await passwordHash());
    await addMembership(services.db, user.id, accountId, role);
    const { token } = await createSession(services.db, user.id, accountId, new Date());
    users[role] = { id: user.id, email, session: await sessionFrom(app, `${SESSION_COOKIE}=${token}`) };
  }
  const { owner, admin } = users;

  const keys = {} as Record<KeyKind, TenantKey>;
  for (const kind of KEY_KINDS) {
    const name = tag(label, `${kind}-key`);
    const path = kind === 'model' ? '/console/api/keys' : `/console/api/${kind}-keys`;
    const created = ok<{ data: { id: string; label: string }; key: string }>(await owner.session.request('POST', path, { name }), `create ${kind} key`);
    keys[kind] = { id: created.data.id, plain: created.key, name, label: created.data.label };
  }

  const invitedEmail = `${tag(label, 'invited')}@tenant-${label.toLowerCase()}.example`;
  const invitation = ok<{ data: { id: string } }>(await owner.session.request('POST', '/console/api/invitations', { email: invitedEmail, role: 'admin' }), 'invite');

  const consoleAgent = { id: tag(label, 'agent'), name: tag(label, 'agent-name'), instructions: tag(label, 'agent-instructions') };
  ok(
    await admin.session.request('PUT', `/console/api/agents/${consoleAgent.id}`, { definition: { name: consoleAgent.name, model: 'openai/test-echo', instructions: consoleAgent.instructions } }),
    'save console agent',
  );

  const collection = tag(label, 'collection');
  ok(await admin.session.request('POST', '/console/api/knowledge/collections', { name: collection }), 'create collection');
  const documentText = tag(label, 'document-text');
  const upload = multipartBody({ field: 'file', filename: `${tag(label, 'document')}.md`, content: `# Notes\n\nThe secret word is ${documentText}.\n`, type: 'text/markdown' });
  const uploaded = ok<{ data: { path: string } }>(await admin.session.request('POST', `/console/api/knowledge/collections/${collection}/documents`, upload.payload, upload.headers), 'upload document');
  const documents = await services.db.query<{ id: number }>('SELECT id FROM knowledge_documents WHERE account_id = $1 AND collection = $2', [accountId, collection]);
  const documentId = Number(documents.rows[0]?.id);

  const prompt = tag(label, 'gateway-prompt');
  const completion = ok<{ id: string }>(
    await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(keys.model.plain), payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: prompt }] } }),
    'gateway chat',
  );

  const texts = {
    conversation: tag(label, 'conversation-text'),
    response: tag(label, 'response-text'),
    playground: tag(label, 'playground-text'),
    background: tag(label, 'background-text'),
    passthroughResponse: tag(label, 'passthrough-response-text'),
    passthroughFile: tag(label, 'passthrough-file-text'),
    feedback: tag(label, 'feedback-comment'),
  };
  const agentKey = bearer(keys.agent.plain);
  const chatted = ok<{ conversation_id: string; message_id: string }>(
    await app.inject({ method: 'POST', url: '/agents/v1/chat/completions', headers: agentKey, payload: { model: consoleAgent.id, messages: [{ role: 'user', content: texts.conversation }] } }),
    'agent chat',
  );
  const response = ok<{ id: string }>(
    await app.inject({ method: 'POST', url: '/agents/v1/responses', headers: agentKey, payload: { model: consoleAgent.id, input: texts.response } }),
    'agent response',
  );
  // Feedback with a comment, so the routes that list feedback are searched for it.
  ok(await app.inject({ method: 'POST', url: `/agents/v1/responses/${response.id}/feedback`, headers: agentKey, payload: { score: 'up', comment: texts.feedback } }), 'feedback');
  const background = ok<{ id: string }>(
    await app.inject({ method: 'POST', url: '/agents/v1/responses', headers: agentKey, payload: { model: consoleAgent.id, input: texts.background, background: true } }),
    'background response',
  );
  const playground = ok<{ conversation_id: string }>(
    await owner.session.request('POST', '/agents/v1/chat/completions', { model: consoleAgent.id, messages: [{ role: 'user', content: texts.playground }] }),
    'playground run',
  );

  const passthroughResponse = ok<{ id: string }>(
    await app.inject({ method: 'POST', url: '/v1/responses', headers: bearer(keys.model.plain), payload: { model: 'openai/test-echo', input: texts.passthroughResponse } }),
    'pass-through response',
  );
  const file = multipartBody({ field: 'file', filename: `${tag(label, 'passthrough-file')}.jsonl`, content: `{"secret":"${texts.passthroughFile}"}\n` }, { purpose: 'batch' });
  const passthroughFile = ok<{ id: string }>(
    await app.inject({ method: 'POST', url: '/v1/files', headers: { ...bearer(keys.model.plain), ...file.headers }, payload: file.payload }),
    'pass-through file',
  );

  const dataset = ok<{ id: string; name: string }>(await admin.session.request('POST', '/console/api/datasets', { name: tag(label, 'dataset') }), 'create dataset');
  const datasetText = tag(label, 'dataset-case-text');
  const datasetCase = ok<{ id: string }>(await admin.session.request('POST', `/console/api/datasets/${dataset.id}/cases`, { input: datasetText, tags: [tag(label, 'case-tag')] }), 'add case');
  ok(await admin.session.request('POST', `/console/api/datasets/${dataset.id}/cases/from-run`, { response_id: response.id }), 'add case from run');

  const stored = await services.db.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1 AND name LIKE $2', [accountId, 'Console playground%']);
  const markers = [
    accountId,
    accountName,
    ...ROLES.flatMap((role) => [users[role].id, users[role].email]),
    ...KEY_KINDS.flatMap((kind) => [keys[kind].id, keys[kind].plain, keys[kind].plain.slice(-43), keys[kind].name, keys[kind].label]),
    ...stored.rows.map((row) => row.id),
    invitedEmail,
    invitation.data.id,
    consoleAgent.name,
    consoleAgent.instructions,
    fileAgent.name,
    fileAgent.instructions,
    documentText,
    uploaded.data.path,
    prompt,
    ...Object.values(texts),
    completion.id,
    chatted.conversation_id,
    chatted.message_id,
    response.id,
    background.id,
    playground.conversation_id,
    passthroughResponse.id,
    passthroughFile.id,
    dataset.id,
    dataset.name,
    datasetText,
    datasetCase.id,
  ];
  return {
    label,
    accountId,
    accountName,
    users,
    keys,
    invitation: { id: invitation.data.id, email: invitedEmail },
    consoleAgent,
    fileAgent,
    knowledge: { collection, documentId, path: uploaded.data.path, text: documentText },
    generationId: completion.id,
    conversation: { id: chatted.conversation_id, messageId: chatted.message_id },
    responseId: response.id,
    backgroundResponseId: background.id,
    playgroundConversationId: playground.conversation_id,
    passthrough: { fileId: passthroughFile.id, responseId: passthroughResponse.id },
    dataset: { id: dataset.id, name: dataset.name, caseId: datasetCase.id },
    markers,
  };
}

/** The other account's markers found in a response body, minus what the caller itself sent. */
export function leakedMarkers(body: string, victim: Tenant, sent: string): string[] {
  return victim.markers.filter((marker) => body.includes(marker) && !sent.includes(marker));
}
