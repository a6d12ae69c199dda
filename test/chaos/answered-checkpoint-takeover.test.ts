import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { startTakeoverHarness, type TakeoverHarness, waitFor } from '../support/takeover-harness.ts';

/**
 * `kill -9` after a background run's last step was checkpointed but before the response
 * stood in the store. `agent_runs` is locked from outside while the model streams
 * (PostgreSQL only: an embedded store has one process), so the model step's checkpoint
 * commits while the run's snapshot and its finished response wait; the process then dies.
 * The process that takes the run over finds nothing left to run in the graph, and must
 * still answer with what that checkpoint holds: the model's answer, without asking the
 * model again.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const folders = runtimeFolders({
  talker: 'name: Talker\nmodel: openai/test-slow\ninstructions: Talk slowly.\n',
  worker: 'name: Worker\nmodel: openai/test-tool-slow\ninstructions: Use your tool.\ntools: [echo_upper]\n',
});
/** What the slow fake streams for this input: thirty padding words, then the echo. */
const ANSWER = `${Array.from({ length: 30 }, (_, index) => `tick-${index + 1}`).join(' ')} tell me a story`;
/** LangGraph's step numbers of the checkpoints written after the first model node (input, start, load_history, retrieve, model) and its tools. */
const MODEL_STEP = 3;
const TOOLS_STEP = 4;
let harness: TakeoverHarness;
let upstream: TakeoverHarness['upstream'];
let storage: TakeoverHarness['storage'];
let dataDir: string;

beforeAll(async () => {
  if (!onPostgres) return;
  harness = await startTakeoverHarness({ folderEnv: folders.env, slowChunkDelayMs: 100, name: 'answered-checkpoint' });
  ({ upstream, storage, dataDir } = harness);
});
afterAll(async () => {
  await harness?.close();
  folders.remove();
});

const start = () => harness.start();
const cli = (...args: string[]) => harness.cli(...args);
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event:'))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; sequence_number: number; delta?: string; text?: string; item?: OutputItem; response?: Resource });

type OutputItem = { type: string; role?: string; name?: string; output?: string | null; content?: Array<{ type: string; text: string }> };
type Resource = { id: string; status: string; output: OutputItem[]; usage: { input_tokens: number; output_tokens: number; cost: number } | null };
type UsageRow = { status: string; requested_model: string; input_tokens: number; output_tokens: number; cost_micros: number };
const textOf = (output: OutputItem[]) => output.flatMap((item) => (item.type === 'message' ? (item.content ?? []).map((part) => part.text) : [])).join('');

/** A background response on `agent`, its process killed once its run checkpointed `step` while `agent_runs` was locked; then taken over. */
async function killedAfterCheckpoint(agent: string, step: number) {
  const first = await start();
  const key = JSON.parse(await cli('keys', 'create', '--kind', 'agent', '--name', `answered-${agent}`, '--json')).key as string;
  await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ model: agent, input: 'tell me a story', background: true });
  const created = (await (await fetch(`${first.url}/agents/v1/responses`, { method: 'POST', headers, body })).json()) as Resource;
  expect(created.status).toBe('queued');
  const asked = upstream.requests.length;

  const outside = new pg.Client({ connectionString: storage.databaseUrl });
  await outside.connect();
  let runId: string | undefined;
  try {
    await waitFor(async () => (upstream.requests.length > asked ? true : undefined), 'the model call');
    runId = (await outside.query<{ id: string }>('SELECT id FROM agent_runs WHERE response_id = $1', [created.id])).rows[0]?.id;
    // While the model streams, the run's snapshot (and so its finished response) cannot be written; its checkpoints can.
    await outside.query('BEGIN');
    await outside.query('LOCK TABLE agent_runs IN SHARE MODE');
    const reader = new pg.Client({ connectionString: storage.databaseUrl });
    await reader.connect();
    try {
      await waitFor(async () => {
        const rows = await reader.query<{ step: number }>(`SELECT max((metadata->>'step')::int) AS step FROM agent_checkpoints WHERE thread_id = $1`, [runId]);
        return (rows.rows[0]?.step ?? -1) >= step ? true : undefined;
      }, `the checkpoint of step ${step}`);
      // A tool's usage row is written a few ms after it returns (the settlement group commit): kill once it is there.
      if (step === TOOLS_STEP) {
        await waitFor(async () => {
          const rows = await reader.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE agent_run_id = $1 AND requested_model LIKE 'tool:%'`, [runId]);
          return (rows.rows[0]?.n ?? 0) > 0 ? true : undefined;
        }, 'the tool’s usage row');
      }
    } finally {
      await reader.end();
    }
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;
    // The dead process's snapshot statement is still queued on the lock in its backend,
    // which would commit it once the lock goes: end those backends first, as a lost host's would be.
    await outside.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    await outside.query('ROLLBACK');
  } finally {
    await outside.end();
  }

  const second = await start();
  const done = await waitFor(async () => {
    const resource = (await (await fetch(`${second.url}/agents/v1/responses/${created.id}`, { headers })).json()) as Resource;
    return resource.status === 'queued' || resource.status === 'in_progress' ? undefined : resource;
  }, 'the response to finish');
  const replay = eventsOf(await (await fetch(`${second.url}/agents/v1/responses/${created.id}?stream=true`, { headers })).text());
  const stopped = once(second.child, 'exit');
  second.child.kill('SIGTERM');
  await stopped;

  const db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir });
  try {
    const rows = (await db.query<UsageRow>('SELECT status, requested_model, input_tokens, output_tokens, cost_micros FROM usage_log WHERE agent_run_id = $1 ORDER BY created_at', [runId])).rows;
    // The turn as a later `previous_response_id` sees it: what was asked, then what the run produced.
    const turn = await db.query<{ role: string; message: { content: unknown } }>(
      'SELECT m.role, m.message FROM conversation_messages m JOIN responses r ON r.conversation_id = m.conversation_id WHERE r.id = $1 ORDER BY m.position',
      [created.id],
    );
    return { done, replay, rows, turn: turn.rows, requests: upstream.requests.slice(asked) };
  } finally {
    await db.close();
  }
}

const sum = (rows: UsageRow[], field: 'input_tokens' | 'output_tokens' | 'cost_micros') => rows.reduce((total, row) => total + Number(row[field]), 0);

/** The response's usage is the sum of the run's usage rows. */
function expectUsageOfRows(done: Resource, rows: UsageRow[]): void {
  expect(done.usage?.input_tokens).toBe(sum(rows, 'input_tokens'));
  expect(done.usage?.output_tokens).toBe(sum(rows, 'output_tokens'));
  expect(Math.round((done.usage?.cost ?? 0) * 1_000_000)).toBe(sum(rows, 'cost_micros'));
}

describe.skipIf(!onPostgres)('kill -9 between a run’s checkpoint and its response taking it in (PostgreSQL)', () => {
  it('after the last step: the process that takes it over answers with the checkpoint’s answer, without asking the model again', async () => {
    const { done, replay, rows, turn, requests } = await killedAfterCheckpoint('talker', MODEL_STEP);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(textOf(done.output), JSON.stringify(done.output)).toBe(ANSWER);
    expect(requests).toHaveLength(1);
    expect(turn.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(turn[1]?.message.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(rows.map((row) => row.status)).toEqual(['success']);
    expectUsageOfRows(done, rows);

    // The stored events tell the same story as GET: one answer, streamed, then the completed response.
    expect(replay.map((event) => event.sequence_number)).toEqual(replay.map((_, index) => index));
    expect(
      replay
        .filter((event) => event.type === 'response.output_text.delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe(ANSWER);
    expect(replay.filter((event) => event.type === 'response.output_text.done').map((event) => event.text)).toEqual([ANSWER]);
    expect(replay.at(-1)?.type).toBe('response.completed');
    expect(replay.at(-1)?.response?.output).toEqual(done.output);
  }, 180_000);

  it('after a tool step: the answer that called the tool and the tool’s result are shown once, and the run goes on', async () => {
    const { done, replay, rows, turn, requests } = await killedAfterCheckpoint('worker', TOOLS_STEP);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.output.map((item) => item.type)).toEqual(['message', 'junction:tool_call', 'message']);
    expect(done.output[1]).toMatchObject({ name: 'echo_upper', output: expect.stringMatching(/\S/) });
    // The step that called the tool ran once, and so did the tool (the dead process may have started the next step: it is billed and counted).
    expect(requests.filter((request) => !JSON.stringify(request.body).includes('"role":"tool"'))).toHaveLength(1);
    expect(rows.filter((row) => row.requested_model === 'tool:echo_upper')).toHaveLength(1);
    expect(turn.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expectUsageOfRows(done, rows);

    expect(replay.map((event) => event.sequence_number)).toEqual(replay.map((_, index) => index));
    expect(replay.filter((event) => event.type === 'response.output_item.added').map((event) => event.item?.type)).toEqual(['message', 'junction:tool_call', 'message']);
    expect(replay.filter((event) => event.type === 'response.completed')).toHaveLength(1);
    expect(replay.at(-1)?.response?.output).toEqual(done.output);
  }, 180_000);
});
