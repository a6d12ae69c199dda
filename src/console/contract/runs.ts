import { z } from 'zod';
import { UsageEntrySchema } from './usage.ts';

export const RunStepViewSchema = z.object({
  id: z.string(),
  parent_step_id: z.string().nullable(),
  seq: z.number(),
  kind: z.enum(['retrieval', 'model', 'tool', 'mcp', 'agent', 'handoff', 'approval']),
  name: z.string(),
  agent_id: z.string(),
  agent_path: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string(),
  latency_ms: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  status: z.string(),
  /** Prompts, answers, arguments, results; null when the account keeps metadata only. */
  content: z.unknown().nullable(),
});
export type RunStepView = z.infer<typeof RunStepViewSchema>;

export const RunViewSchema = z.object({
  run_id: z.string(),
  response_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  agent_version: z.string().nullable(),
  key_id: z.string().nullable(),
  key_name: z.string().nullable(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  latency_ms: z.number().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  /** What the run's usage rows add up to: the bill, whatever the steps kept. */
  usage_rows: z.number(),
  usage_cost_usd: z.number(),
  steps: z.array(RunStepViewSchema),
});
export type RunView = z.infer<typeof RunViewSchema>;

/** A gateway call: its usage row as the Usage page shows it, with no steps. */
export const CallViewSchema = UsageEntrySchema;
export type CallView = z.infer<typeof CallViewSchema>;

export const RunLookupSchema = z.discriminatedUnion('kind', [z.object({ kind: z.literal('run'), run: RunViewSchema }), z.object({ kind: z.literal('call'), call: CallViewSchema })]);
export type RunLookup = z.infer<typeof RunLookupSchema>;

export const RunContentSettingSchema = z.strictObject({ keep: z.enum(['content', 'metadata']) });
export type RunContentSetting = z.infer<typeof RunContentSettingSchema>;
