import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { randomHex } from '../core/random-hex.ts';
import { storableJson } from '../core/storable-text.ts';
import type { Queryable } from '../store/database.ts';
import { type CaseExpectations, caseExpectationsSchema } from './case-expectations.ts';
import { type CaseInput, type CasePatch, type CaseSource, CaseSourceSchema } from './case-fields.ts';
import type { NewDataset } from './dataset-fields.ts';

/**
 * SQL for datasets and their cases (migrations/0026_eval_datasets.sql). Every statement is
 * scoped to the account, so an id or name of another account's dataset names nothing.
 */

export type Dataset = {
  id: string;
  accountId: string;
  name: string;
  description: string;
  caseCount: number;
  createdAt: Date;
  updatedAt: Date;
};

export type EvalCase = {
  id: string;
  datasetId: string;
  input: CaseInput;
  reference: string | null;
  expect: CaseExpectations | null;
  tags: string[];
  source: CaseSource | null;
  createdAt: Date;
  updatedAt: Date;
};

export type NewCase = {
  input: CaseInput;
  reference?: string | null;
  expect?: CaseExpectations | null;
  tags?: readonly string[];
  source?: CaseSource | null;
};

export type CasePage = { after?: string | null; limit?: number };

export const newDatasetId = (): string => `ds_${randomHex(12)}`;
export const newCaseId = (): string => `case_${randomHex(12)}`;

type DatasetRow = { id: string; account_id: string; name: string; description: string; case_count: string | number; created_at: Date; updated_at: Date };
type CaseRow = {
  id: string;
  dataset_id: string;
  input: unknown;
  reference: string | null;
  expect: unknown;
  tags: unknown;
  source: unknown;
  created_at: Date;
  updated_at: Date;
};

const DATASET_COLUMNS = `d.id, d.account_id, d.name, d.description, d.created_at, d.updated_at,
  (SELECT count(*) FROM eval_cases c WHERE c.dataset_id = d.id) AS case_count`;
// The array travels as jsonb: both engines hand jsonb back as a parsed value.
const CASE_COLUMNS = 'c.id, c.dataset_id, c.input, c.reference, c.expect, to_jsonb(c.tags) AS tags, c.source, c.created_at, c.updated_at';

// Lenient on read: rows were checked when written; a bound changed since must not hide them.
const StoredInputSchema = z.union([z.string(), z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))]).catch('');

const toDataset = (row: DatasetRow): Dataset => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  description: row.description,
  caseCount: Number(row.case_count),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toCase = (row: CaseRow): EvalCase => ({
  id: row.id,
  datasetId: row.dataset_id,
  input: StoredInputSchema.parse(row.input),
  reference: row.reference,
  expect: caseExpectationsSchema
    .nullable()
    .catch(null)
    .parse(row.expect ?? null),
  tags: z.array(z.string()).catch([]).parse(row.tags),
  source: CaseSourceSchema.nullable()
    .catch(null)
    .parse(row.source ?? null),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : storableJson(value));

export function createDatasetRepository(db: Queryable) {
  const datasetWhere = async (accountId: string, where: string, value: string): Promise<Dataset | undefined> => {
    const result = await db.query<DatasetRow>(`SELECT ${DATASET_COLUMNS} FROM eval_datasets d WHERE d.account_id = $1 AND ${where} LIMIT 1`, [accountId, value]);
    return result.rows[0] ? toDataset(result.rows[0]) : undefined;
  };

  return {
    /** A new empty dataset; a name the account already uses is a conflict. */
    async create(accountId: string, dataset: NewDataset): Promise<Dataset> {
      const result = await db.query<DatasetRow>(
        `INSERT INTO eval_datasets (id, account_id, name, description) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, name) DO NOTHING
         RETURNING id, account_id, name, description, 0 AS case_count, created_at, updated_at`,
        [newDatasetId(), accountId, dataset.name, dataset.description ?? ''],
      );
      const row = result.rows[0];
      if (!row) throw new JunctionError('conflict', `A dataset named '${dataset.name}' already exists in this account.`, { param: 'name' });
      return toDataset(row);
    },

    async list(accountId: string): Promise<Dataset[]> {
      const result = await db.query<DatasetRow>(`SELECT ${DATASET_COLUMNS} FROM eval_datasets d WHERE d.account_id = $1 ORDER BY d.name`, [accountId]);
      return result.rows.map(toDataset);
    },

    get: (accountId: string, id: string) => datasetWhere(accountId, 'd.id = $2', id),

    getByName: (accountId: string, name: string) => datasetWhere(accountId, 'd.name = $2', name),

    /** By id, else by name: the API's paths take either. */
    find: (accountId: string, idOrName: string) => datasetWhere(accountId, '(d.id = $2 OR d.name = $2) ORDER BY (d.id = $2) DESC', idOrName),

    /** Deletes the dataset and its cases; false when the account has no such dataset. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db.query('DELETE FROM eval_datasets WHERE account_id = $1 AND id = $2', [accountId, id]);
      return result.rowCount > 0;
    },

    /**
     * Appends cases in the order given, in one statement (all or none); none when the
     * dataset is not the account's.
     */
    async addCases(accountId: string, datasetId: string, cases: readonly NewCase[]): Promise<EvalCase[]> {
      if (cases.length === 0) return [];
      const rows = cases.map((entry, ord) => ({
        ord,
        id: newCaseId(),
        input: entry.input,
        reference: entry.reference ?? null,
        expect: entry.expect ?? null,
        tags: entry.tags ?? [],
        source: entry.source ?? null,
      }));
      const result = await db.query<CaseRow>(
        `WITH target AS (SELECT id FROM eval_datasets WHERE id = $2 AND account_id = $1),
         touched AS (UPDATE eval_datasets SET updated_at = now() WHERE id IN (SELECT id FROM target)),
         inserted AS (
           INSERT INTO eval_cases (id, dataset_id, account_id, input, reference, expect, tags, source)
           SELECT r.id, target.id, $1, r.input, r.reference, CASE WHEN jsonb_typeof(r.expect) = 'object' THEN r.expect END,
             ARRAY(SELECT jsonb_array_elements_text(r.tags)), CASE WHEN jsonb_typeof(r.source) = 'object' THEN r.source END
           FROM target, jsonb_to_recordset($3::jsonb) AS r(ord integer, id text, input jsonb, reference text, expect jsonb, tags jsonb, source jsonb)
           ORDER BY r.ord
           RETURNING id, dataset_id, input, reference, expect, tags, source, created_at, updated_at, position)
         SELECT ${CASE_COLUMNS} FROM inserted c ORDER BY c.position`,
        [accountId, datasetId, storableJson(rows)],
      );
      return result.rows.map(toCase);
    },

    /** Cases in the order they were added, after the case `after` (a case id), at most `limit` (all when unset). */
    async listCases(accountId: string, datasetId: string, page: CasePage = {}): Promise<EvalCase[]> {
      const result = await db.query<CaseRow>(
        `SELECT ${CASE_COLUMNS} FROM eval_cases c
         WHERE c.account_id = $1 AND c.dataset_id = $2
           AND ($3::text IS NULL OR c.position > (SELECT a.position FROM eval_cases a WHERE a.id = $3 AND a.dataset_id = $2))
         ORDER BY c.position LIMIT $4::bigint`,
        [accountId, datasetId, page.after ?? null, page.limit ?? null],
      );
      return result.rows.map(toCase);
    },

    async getCase(accountId: string, datasetId: string, caseId: string): Promise<EvalCase | undefined> {
      const result = await db.query<CaseRow>(`SELECT ${CASE_COLUMNS} FROM eval_cases c WHERE c.account_id = $1 AND c.dataset_id = $2 AND c.id = $3`, [accountId, datasetId, caseId]);
      return result.rows[0] ? toCase(result.rows[0]) : undefined;
    },

    /** Replaces the fields the patch names (null clears a reference or expectations); undefined when there is no such case. */
    async updateCase(accountId: string, datasetId: string, caseId: string, patch: CasePatch): Promise<EvalCase | undefined> {
      const result = await db.query<CaseRow>(
        `UPDATE eval_cases c SET
           input = COALESCE($4::jsonb, c.input),
           reference = CASE WHEN $5::boolean THEN $6::text ELSE c.reference END,
           expect = CASE WHEN $7::boolean THEN $8::jsonb ELSE c.expect END,
           tags = CASE WHEN $9::jsonb IS NULL THEN c.tags ELSE ARRAY(SELECT jsonb_array_elements_text($9::jsonb)) END,
           updated_at = now()
         WHERE c.account_id = $1 AND c.dataset_id = $2 AND c.id = $3
         RETURNING ${CASE_COLUMNS}`,
        [accountId, datasetId, caseId, jsonOrNull(patch.input), patch.reference !== undefined, patch.reference ?? null, patch.expect !== undefined, jsonOrNull(patch.expect), jsonOrNull(patch.tags)],
      );
      return result.rows[0] ? toCase(result.rows[0]) : undefined;
    },

    async removeCase(accountId: string, datasetId: string, caseId: string): Promise<boolean> {
      const result = await db.query('DELETE FROM eval_cases WHERE account_id = $1 AND dataset_id = $2 AND id = $3', [accountId, datasetId, caseId]);
      return result.rowCount > 0;
    },
  };
}

export type DatasetRepository = ReturnType<typeof createDatasetRepository>;
