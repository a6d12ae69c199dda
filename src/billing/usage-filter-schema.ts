import { z } from 'zod';
import { USAGE_STATUS_FILTERS } from './usage-status.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The usage log's filters as a query string spells them: one set of fields for the
 * console's Usage page, its exports and `GET /v1/usage`, read by `usageFiltersOf`.
 */
export const UsageFilterFields = {
  /** Any key of the account: model, agent or provisioning. */
  key_id: z.string().regex(UUID, 'a key id').optional(),
  /** Part of the model's name, any case: `mini` finds `openai/gpt-4o-mini`. */
  model: z.string().max(256).optional(),
  endpoint: z.string().max(64).optional(),
  /** `success`, `error` or `refused` (see usage-status.ts), or one stored status. */
  status: z.enum(USAGE_STATUS_FILTERS).optional(),
  agent_id: z.string().max(200).optional(),
  /** Instants with an offset: the console sends the local midnights of the days picked. */
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
};

/** What the log's rows can be grouped by. */
export const USAGE_GROUPINGS = ['key', 'model', 'agent', 'day'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

const UsageFilterFieldsSchema = z.object(UsageFilterFields);
export type UsageFilterInput = z.infer<typeof UsageFilterFieldsSchema>;

export type UsageFilterValues = {
  keyId?: string;
  model?: string;
  status?: (typeof USAGE_STATUS_FILTERS)[number];
  endpoint?: string;
  agentId?: string;
  from?: Date;
  to?: Date;
};

/** The filters of a parsed query; blank text filters nothing. */
export function usageFiltersOf(input: UsageFilterInput): UsageFilterValues {
  const text = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
  const model = text(input.model);
  const endpoint = text(input.endpoint);
  const agentId = text(input.agent_id);
  return {
    ...(input.key_id && { keyId: input.key_id.toLowerCase() }),
    ...(model && { model }),
    ...(endpoint && { endpoint }),
    ...(input.status && { status: input.status }),
    ...(agentId && { agentId }),
    ...(input.from && { from: new Date(input.from) }),
    ...(input.to && { to: new Date(input.to) }),
  };
}
