import { z } from 'zod';

/** Ids as the Agents API makes them (`conv_…`, `msg_…`): anything else names nothing. */
const ObjectIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, "_" and "-", at most 100');

export const ConversationListQuerySchema = z.strictObject({
  /** Only the conversations made with this key. */
  key_id: z.uuid().optional(),
  /** Opaque cursor from `next_cursor`. */
  cursor: ObjectIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});
export type ConversationListQuery = z.input<typeof ConversationListQuerySchema>;

export const ConversationIdParamsSchema = z.object({ id: ObjectIdSchema });

/** The key a conversation was made with, and who that is: a person for a playground key, else the key's name. */
export const ConversationKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  /** "playground" (a person's console key) or "api" (any other agent key). */
  source: z.enum(['playground', 'api']),
  caller: z.string(),
});
export type ConversationKey = z.infer<typeof ConversationKeySchema>;

export const ConversationSummarySchema = z.object({
  id: z.string(),
  agent_id: z.string(),
  key: ConversationKeySchema,
  /** The first user message, cut to 80 characters. */
  title: z.string().nullable(),
  message_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

export const ConversationPageSchema = z.object({ data: z.array(ConversationSummarySchema), next_cursor: z.string().nullable() });
export type ConversationPage = z.infer<typeof ConversationPageSchema>;

export const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

/** One node of the tree, in a shape the console draws without knowing the model formats. */
export const ConversationNodeSchema = z.object({
  id: z.string(),
  parent_id: z.string().nullable(),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  /** The text of the node (user, assistant and system text; a tool's result). */
  text: z.string(),
  /** Non-text parts of a user message (images, files), by kind. */
  attachments: z.array(z.string()),
  reasoning: z.string().nullable(),
  tool_calls: z.array(ToolCallSchema),
  /** Tool results: the call they answer. */
  tool_call_id: z.string().nullable(),
  tool_name: z.string().nullable(),
  is_error: z.boolean(),
  /** Deleted through the Conversations API: kept in the tree, its content no longer shown. */
  deleted: z.boolean(),
  agent_id: z.string().nullable(),
  model: z.string().nullable(),
  response_id: z.string().nullable(),
  /** The agent run that produced the node: its usage rows carry the same id. */
  run_id: z.string().nullable(),
  /** On a turn's last assistant message: what the whole run used, as the Agents API reports it. */
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number(), cost_usd: z.number().nullable() }).nullable(),
  created_at: z.string(),
});
export type ConversationNode = z.infer<typeof ConversationNodeSchema>;

/** What one agent run was billed: the sum of its usage rows. */
export const RunUsageSchema = z.object({
  run_id: z.string(),
  calls: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
});
export type RunUsage = z.infer<typeof RunUsageSchema>;

export const ConversationDetailSchema = ConversationSummarySchema.extend({
  /** Every node in append order (parents before children); the newest branch ends at the last one. */
  messages: z.array(ConversationNodeSchema),
  latest_message_id: z.string().nullable(),
  runs: z.array(RunUsageSchema),
});
export type ConversationDetail = z.infer<typeof ConversationDetailSchema>;
