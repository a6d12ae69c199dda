import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import { isJunctionError } from '../../../src/core/errors.ts';
import { parseCaseLines } from '../../../src/evaluation/case-lines.ts';
import { createDatasetRepository, type DatasetRepository } from '../../../src/evaluation/dataset-repository.ts';
import { openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** The dataset repository (migration 0026) on each engine: scoped to the account, cases kept in the order added. */
let store: Awaited<ReturnType<typeof openKnowledgeDatabase>>;
let datasets: DatasetRepository;
let otherAccountId: string;

beforeAll(async () => {
  store = await openKnowledgeDatabase();
  datasets = createDatasetRepository(store.db);
  otherAccountId = (await createAccount(store.db, 'other')).id;
});
afterAll(async () => store?.close());

describe(`datasets on ${engineName()}`, () => {
  it('creates, finds by id or name, and refuses a taken name with a conflict', async () => {
    const dataset = await datasets.create(store.accountId, { name: 'support', description: 'support cases' });
    expect(dataset).toMatchObject({ name: 'support', description: 'support cases', caseCount: 0, accountId: store.accountId });
    expect((await datasets.getByName(store.accountId, 'support'))?.id).toBe(dataset.id);
    expect((await datasets.find(store.accountId, dataset.id))?.id).toBe(dataset.id);
    expect((await datasets.find(store.accountId, 'support'))?.id).toBe(dataset.id);
    const refused = await datasets.create(store.accountId, { name: 'support' }).catch((error: unknown) => error);
    expect(isJunctionError(refused) && refused.code).toBe('conflict');
    // The same name in another account is another dataset.
    const theirs = await datasets.create(otherAccountId, { name: 'support' });
    expect(theirs.id).not.toBe(dataset.id);
    expect(await datasets.get(otherAccountId, dataset.id)).toBeUndefined();
    expect((await datasets.list(otherAccountId)).map((entry) => entry.id)).toEqual([theirs.id]);
  });

  it('adds cases in order with every field, pages them, edits and removes them, all within the account', async () => {
    const dataset = await datasets.create(store.accountId, { name: 'ordered' });
    const parsed = parseCaseLines(
      [
        JSON.stringify({ input: 'a', reference: 'A', tags: ['x', 'y z'] }),
        JSON.stringify({
          input: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'b' },
          ],
          expect: { cites: ['handbook.md'], json_schema: { type: 'object' } },
        }),
        JSON.stringify({ input: 'c "quoted" \\ {braces}', tags: ['"odd"'] }),
      ].join('\n'),
      { file: 'cases.jsonl' },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const added = await datasets.addCases(store.accountId, dataset.id, parsed.cases);
    expect(added.map((entry) => entry.input)).toEqual([
      'a',
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'b' },
      ],
      'c "quoted" \\ {braces}',
    ]);
    expect(added[0]).toMatchObject({ reference: 'A', tags: ['x', 'y z'], expect: null, source: { file: 'cases.jsonl' }, datasetId: dataset.id });
    expect(added[1]?.expect).toEqual({ cites: ['handbook.md'], json_schema: { type: 'object' } });
    expect(added[2]?.tags).toEqual(['"odd"']);
    expect((await datasets.get(store.accountId, dataset.id))?.caseCount).toBe(3);

    expect(await datasets.addCases(otherAccountId, dataset.id, [{ input: 'planted' }])).toEqual([]);
    expect(await datasets.listCases(otherAccountId, dataset.id)).toEqual([]);

    const all = await datasets.listCases(store.accountId, dataset.id);
    expect(all.map((entry) => entry.id)).toEqual(added.map((entry) => entry.id));
    const afterFirst = await datasets.listCases(store.accountId, dataset.id, { after: added[0]?.id ?? null, limit: 1 });
    expect(afterFirst.map((entry) => entry.id)).toEqual([added[1]?.id]);

    const caseId = added[0]?.id ?? '';
    expect(await datasets.updateCase(otherAccountId, dataset.id, caseId, { reference: 'planted' })).toBeUndefined();
    const updated = await datasets.updateCase(store.accountId, dataset.id, caseId, { reference: null, tags: [], expect: { must_contain: ['A'] } });
    expect(updated).toMatchObject({ input: 'a', reference: null, tags: [], expect: { must_contain: ['A'] } });
    expect(await datasets.removeCase(otherAccountId, dataset.id, caseId)).toBe(false);
    expect(await datasets.removeCase(store.accountId, dataset.id, caseId)).toBe(true);
    expect(await datasets.getCase(store.accountId, dataset.id, caseId)).toBeUndefined();

    expect(await datasets.remove(otherAccountId, dataset.id)).toBe(false);
    expect(await datasets.remove(store.accountId, dataset.id)).toBe(true);
    const left = await store.db.query<{ count: string }>('SELECT count(*) AS count FROM eval_cases WHERE dataset_id = $1', [dataset.id]);
    expect(Number(left.rows[0]?.count)).toBe(0);
  });
});
