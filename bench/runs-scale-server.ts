/**
 * Junction under the runs and conversations scale bench (bench/runs-scale.ts): the real app
 * with agents on, and one account's agent traffic loaded before it listens, generated in the
 * database in time order:
 * - SCALE_RUNS runs over the last 28 days (inside the default run retention), 3 steps each
 *   (model, tool, model) answering a response, 1 usage row each, 1 in 10 a background run
 *   with its agent_runs row;
 * - SCALE_CONVERSATIONS conversations over the last 90 days, 4 messages each (two turns, the
 *   answers naming their runs), and the stored response of the last turn;
 * - feedback on the last answer of 1 conversation in 4 (1 in 7 of it a thumb down, a third
 *   of it on version v2);
 * over 5 agents and 20 agent keys (a key's conversations are one agent's, as an app's are),
 * and a tail of 9 other accounts holding SCALE_OTHER_SHARE (0.1) as many again.
 * Prints its URL, a console session cookie, keys and the ids the timed reads open.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { keepUsagePartitions } from '../src/billing/usage-partitions.ts';
import { readEnvConfig } from '../src/config/env-config.ts';
import { createServices } from '../src/assembly/services.ts';
import { listenSignedIn } from './listen-signed-in.ts';

const runs = Number(process.env.SCALE_RUNS ?? 100_000);
const conversations = Number(process.env.SCALE_CONVERSATIONS ?? runs);
const otherShare = Number(process.env.SCALE_OTHER_SHARE ?? 0.1);
const KEYS = 20;
const AGENTS = 5;
const OTHER_ACCOUNTS = 9;
const RUN_DAYS = 28;
const CONVERSATION_DAYS = 90;
/** Runs or conversations per INSERT. */
const CHUNK = 50_000;

const configDir = mkdtempSync(join(tmpdir(), 'junction-runs-scale-'));
const configFile = join(configDir, 'junction.yaml');
writeFileSync(configFile, 'models:\n  openai/bench-model:\n    capabilities: [chat]\n    max_output_tokens: 1024\n    prices: { input: 0.15, output: 0.6 }\n');
mkdirSync(join(configDir, 'agents'));
mkdirSync(join(configDir, 'tools'));
// The agents exist as files: the console's pages of an agent (its feedback summed) look it up.
for (let index = 0; index < AGENTS; index += 1) {
  writeFileSync(join(configDir, 'agents', `agent-${index}.yaml`), `name: Agent ${index}\nmodel: openai/bench-model\ninstructions: Answer about orders.\n`);
}
if (!process.env.DATABASE_URL) delete process.env.DATABASE_URL;
const env = {
  ...process.env,
  OPENAI_API_KEY: 'upstream',
  OPENAI_BASE_URL: 'http://127.0.0.1:9',
  JUNCTION_CONFIG: configFile,
  JUNCTION_AGENTS_DIR: join(configDir, 'agents'),
  JUNCTION_TOOLS_DIR: join(configDir, 'tools'),
  LOG_LEVEL: 'warn',
};
const config = readEnvConfig({ ...env, JUNCTION_DATA_DIR: process.env.JUNCTION_DATA_DIR ?? join(configDir, 'data') });
const services = await createServices(config, { env });
const db = services.db;
const accountId = services.defaultAccount.id;

type Key = { id: string; token: string };
const createKey = async (name: string, account?: string): Promise<Key> => {
  const made = (await runAdminCommand(services, { command: 'keys.create', kind: 'agent', name, ...(account && { account }) })) as { key: string; data: { id: string } };
  return { id: made.data.id, token: made.key };
};
const keys: Key[] = [];
for (let index = 0; index < KEYS; index += 1) keys.push(await createKey(`agents-${index}`));
const others: Array<{ account: string; key: string }> = [];
if (otherShare > 0) {
  const made = await db.query<{ id: string }>(`INSERT INTO accounts (name) SELECT 'runs-scale-other-' || g FROM generate_series(1, ${OTHER_ACCOUNTS}) g RETURNING id`);
  for (const row of made.rows) others.push({ account: row.id, key: (await createKey('other', row.id)).id });
}

const loadStarted = performance.now();
const end = Date.now();
const day = 86_400_000;
for (let at = end - RUN_DAYS * day; at < end; at += 28 * day) await keepUsagePartitions(db, new Date(at), undefined);

/** Row g's time (end - span + g × span / total) and the batch's range, from the parameters after the first `offset`: end, span, total, first, last. */
const spread = (offset: number) => ({
  time: `to_timestamp(($${offset + 1}::float8 - $${offset + 2}::float8 + g * ($${offset + 2}::float8 / $${offset + 3}::float8)) / 1000)`,
  range: `generate_series($${offset + 4}::int, $${offset + 5}::int) g`,
});

/**
 * One batch of runs `first`..`last` of `total`, ids prefixed `prefix`: the account and key of
 * run g are `account(g)` and `key(g)` (SQL over g), its time end - span + g × span / total.
 */
async function loadRuns(prefix: string, account: string, key: string, total: number, first: number, last: number, params: unknown[]): Promise<void> {
  const { time, range } = spread(params.length);
  const all = [...params, end, RUN_DAYS * day, total, first, last];
  const run = `'${prefix}run_' || g`;
  const response = `'${prefix}resp_run_' || g`;
  const agent = `'agent-' || (g % ${AGENTS})`;
  await db.query(
    `INSERT INTO run_steps (id, account_id, run_id, response_id, parent_step_id, seq, kind, name, agent_id, agent_version, key_id,
       started_at, ended_at, input_tokens, output_tokens, cost_micros, status, content)
     SELECT ${run} || '_' || s, ${account}, ${run}, ${response}, NULL, s, CASE s WHEN 1 THEN 'tool' ELSE 'model' END,
       CASE s WHEN 1 THEN 'lookup_order' ELSE 'openai/bench-model' END, ${agent}, 'v1', ${key}::text,
       ${time} + s * interval '600 ms', ${time} + s * interval '600 ms' + interval '500 ms',
       CASE s WHEN 1 THEN 0 ELSE 400 + g % 500 END, CASE s WHEN 1 THEN 0 ELSE 50 + g % 300 END, CASE s WHEN 1 THEN 0 ELSE 100 + g % 400 END,
       CASE WHEN g % 50 = 0 AND s = 2 THEN 'error' ELSE 'ok' END,
       jsonb_build_object('input', 'Where is order ' || g || '?', 'output', 'Order ' || g || ' ships tomorrow.')
     FROM ${range}, generate_series(0, 2) s`,
    all,
  );
  await db.query(
    `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, provider, status, http_status,
       input_tokens, output_tokens, cost_micros, latency_ms, agent_id, agent_version, agent_run_id, created_at)
     SELECT '${prefix}gen-run-' || g, ${account}, ${key}, 'req-run-' || g, 'chat.completions', 'openai/bench-model', 'openai/bench-model', 'openai',
       CASE WHEN g % 50 = 0 THEN 'upstream_error' ELSE 'success' END, CASE WHEN g % 50 = 0 THEN 502 ELSE 200 END,
       800 + g % 900, 100 + g % 500, 200 + g % 700, 900 + g % 400, ${agent}, 'v1', ${run}, ${time}
     FROM ${range}`,
    all,
  );
  await db.query(
    `INSERT INTO agent_runs (id, response_id, account_id, key_id, agent_id, status, background, request, attempts, created_at, updated_at)
     SELECT ${run}, ${response}, ${account}, ${key}, ${agent}, CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'completed' END, true,
       jsonb_build_object('body', jsonb_build_object('model', ${agent}, 'input', 'Where is order ' || g || '?', 'background', true)), 1, ${time}, ${time} + interval '2 s'
     FROM ${range} WHERE g % 10 = 0`,
    all,
  );
}

/** One batch of conversations, as `loadRuns` does runs; the answers name runs 1..runTotal of the same prefix. */
async function loadConversations(prefix: string, account: string, key: string, total: number, runTotal: number, first: number, last: number, params: unknown[]): Promise<void> {
  const { time, range } = spread(params.length);
  const all = [...params, end, CONVERSATION_DAYS * day, total, first, last];
  // The messages' statement names no account or key: its parameters start at the times.
  const own = spread(0);
  const conversation = `'${prefix}conv_' || g`;
  const message = (n: string) => `'${prefix}msg_' || g || '_' || ${n}`;
  const agent = `'agent-' || (g % ${AGENTS})`;
  await db.query(
    `INSERT INTO conversations (id, account_id, key_id, agent_id, title, created_at, updated_at)
     SELECT ${conversation}, ${account}, ${key}, ${agent}, CASE WHEN g % 10 = 0 THEN NULL ELSE 'Order ' || g END, ${time}, ${time} + interval '90 s'
     FROM ${range}`,
    all,
  );
  await db.query(
    `INSERT INTO conversation_messages (id, conversation_id, parent_id, role, message, model, agent_id, response_id, input_tokens, output_tokens, cost_micros, metadata, created_at)
     SELECT ${message('n')}, ${conversation}, CASE WHEN n = 1 THEN NULL ELSE ${message('(n - 1)')} END,
       CASE WHEN n % 2 = 1 THEN 'user' ELSE 'assistant' END,
       CASE WHEN n % 2 = 1 THEN jsonb_build_object('role', 'user', 'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'Where is order ' || g || '? (' || n || ')')))
         ELSE jsonb_build_object('role', 'assistant', 'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'Order ' || g || ' ships tomorrow.'))) END,
       CASE WHEN n % 2 = 0 THEN 'openai/bench-model' END, ${agent}, CASE WHEN n % 2 = 0 THEN '${prefix}resp_conv_' || g || '_' || (n / 2) END,
       CASE WHEN n % 2 = 0 THEN 800 END, CASE WHEN n % 2 = 0 THEN 100 END, CASE WHEN n % 2 = 0 THEN 300 END,
       CASE WHEN n % 2 = 0 THEN jsonb_build_object('run_id', '${prefix}run_' || (1 + (2 * g + n) % ${Math.max(1, runTotal)})) ELSE '{}'::jsonb END,
       ${own.time} + n * interval '20 s'
     FROM ${own.range}, generate_series(1, 4) n`,
    all.slice(params.length),
  );
  await db.query(
    `INSERT INTO responses (id, account_id, key_id, agent_id, conversation_id, last_message_id, status, model, request, output, cost_micros, created_at, completed_at)
     SELECT '${prefix}resp_conv_' || g || '_2', ${account}, ${key}, ${agent}, ${conversation}, ${message('4')}, 'completed', 'openai/bench-model',
       jsonb_build_object('model', ${agent}, 'input', jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'Where is order ' || g || '? (3)'))),
       jsonb_build_array(jsonb_build_object('type', 'message', 'role', 'assistant', 'content', jsonb_build_array(jsonb_build_object('type', 'output_text', 'text', 'Order ' || g || ' ships tomorrow.')))),
       300, ${time} + interval '60 s', ${time} + interval '80 s'
     FROM ${range}`,
    all,
  );
  await db.query(
    `INSERT INTO agent_feedback (id, account_id, response_id, message_id, conversation_id, run_id, agent_id, agent_version, key_id, score, thumb, created_at)
     SELECT '${prefix}fb_' || g, ${account}, '${prefix}resp_conv_' || g || '_2', ${message('4')}, ${conversation}, '${prefix}run_' || (1 + (2 * g + 4) % ${Math.max(1, runTotal)}),
       ${agent}, CASE WHEN g % 3 = 0 THEN 'v2' ELSE 'v1' END, ${key}, CASE WHEN g % 28 = 0 THEN 0 ELSE 1 END, CASE WHEN g % 28 = 0 THEN 'down' ELSE 'up' END,
       ${time} + interval '100 s'
     FROM ${range} WHERE g % 4 = 0`,
    all,
  );
}

/** The measured account's batches and the other accounts' by turns, as a shared store grows. */
async function loadByTurns(total: number, load: (prefix: string, account: string, key: string, count: number, first: number, last: number, params: unknown[]) => Promise<void>): Promise<void> {
  const otherTotal = Math.round(total * otherShare);
  const turns = Math.max(1, Math.ceil(total / CHUNK));
  let next = 1;
  let otherNext = 1;
  for (let turn = 0; turn < turns; turn += 1) {
    const until = Math.min(total, Math.round(((turn + 1) * total) / turns));
    if (until >= next) await load('', '$1::uuid', `($2::uuid[])[1 + g % ${KEYS}]`, total, next, until, [accountId, keys.map((key) => key.id)]);
    next = until + 1;
    const otherUntil = Math.min(otherTotal, Math.round(((turn + 1) * otherTotal) / turns));
    if (others.length > 0 && otherUntil >= otherNext) {
      const pick = `[1 + g % ${others.length}]`;
      await load('o_', `($1::uuid[])${pick}`, `($2::uuid[])${pick}`, otherTotal, otherNext, otherUntil, [others.map((other) => other.account), others.map((other) => other.key)]);
    }
    otherNext = otherUntil + 1;
  }
}

await loadByTurns(runs, loadRuns);
await loadByTurns(conversations, (prefix, account, key, count, first, last, params) =>
  loadConversations(prefix, account, key, count, prefix === '' ? runs : Math.round(runs * otherShare), first, last, params),
);
// As a store that grew over months is: vacuumed, analyzed, its pages written out.
for (const table of ['run_steps', 'agent_runs', 'usage_log', 'conversations', 'conversation_messages', 'responses', 'agent_feedback']) await db.query(`VACUUM ANALYZE ${table}`);
await db.query('CHECKPOINT');
const loadSeconds = (performance.now() - loadStarted) / 1000;

const { url, cookie } = await listenSignedIn(services, 'runs-scale@example.com');
/** The number nearest `at` that is `rest` modulo `modulus`: a run or conversation of a given agent and key. */
const near = (at: number, modulus: number, rest: number) => Math.max(rest, at - (at % modulus) + rest);
const middleRun = near(Math.round(runs / 2), 10, 3);
const backgroundRun = near(Math.round(runs / 2), 10, 0);
// Conversation c is agent c % 5's and key c % 20's: key 1's are agent-1's, key 0 has none of agent-1's.
const middleConversation = near(Math.round(conversations / 2), KEYS, 1);
// Conversation c has feedback when c % 4 = 0: this one is agent-1's, on the run its last answer names.
const ratedConversation = near(Math.round(conversations / 2), KEYS, 16);
process.stdout.write(
  `${JSON.stringify({
    url,
    cookie,
    engine: db.engine,
    loadSeconds: loadSeconds.toFixed(1),
    agent: 'agent-1',
    keyOfAgent: keys[1]?.id,
    keyOfAgentToken: keys[1]?.token,
    keyWithoutAgent: keys[0]?.id,
    runId: `run_${middleRun}`,
    runResponseId: `resp_run_${middleRun}`,
    backgroundResponseId: `resp_run_${backgroundRun}`,
    conversationId: `conv_${middleConversation}`,
    responseId: `resp_conv_${middleConversation}_2`,
    ratedResponseId: `resp_conv_${ratedConversation}_2`,
    ratedRunId: `run_${1 + ((2 * ratedConversation + 4) % Math.max(1, runs))}`,
    feedbackId: `fb_${ratedConversation}`,
  })}\n`,
);
const stop = () => {
  rmSync(configDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
