import { z } from 'zod';

/**
 * What the console's agent editor saves: the agent's fields (the server validates
 * them with the console's own agent schema, so this stays loose here), a change note
 * for the version history.
 */
export const SaveAgentSchema = z.strictObject({
  definition: z.record(z.string(), z.unknown()),
  change_note: z.string().max(500).nullable().optional(),
});
export type SaveAgent = z.infer<typeof SaveAgentSchema>;

export const AgentIssueSchema = z.object({ path: z.string(), message: z.string() });
/** A refused save: the first problem as the usual error, every problem (by field path) in `issues`. */
export const AgentSaveErrorSchema = z.object({ error: z.object({ message: z.string(), code: z.string(), param: z.string().nullable() }), issues: z.array(AgentIssueSchema) });

export const AgentVersionSchema = z.object({ version: z.number(), change_note: z.string().nullable(), created_by: z.string().nullable(), created_at: z.string() });

export const AgentDetailSchema = z.object({
  id: z.string(),
  source: z.enum(['file', 'console']),
  /** File agents: the path of their YAML (read-only here). */
  path: z.string().nullable(),
  version: z.string(),
  definition: z.record(z.string(), z.unknown()),
  /** Console agents: every saved version, newest first, and which one serves. */
  versions: z.array(AgentVersionSchema),
  latest_version: z.number().nullable(),
  /** A stored console agent that today's rules refuse (it does not run until saved again): why. */
  issues: z.array(AgentIssueSchema).optional(),
});
export type AgentDetail = z.infer<typeof AgentDetailSchema>;

export const RollbackSchema = z.strictObject({ version: z.number().int().positive() });

export const ToolInfoSchema = z.object({ name: z.string(), description: z.string() });
export const EditorOptionsSchema = z.object({ tools: z.array(ToolInfoSchema), knowledge: z.array(z.string()), models: z.array(z.string()) });
export type EditorOptions = z.infer<typeof EditorOptionsSchema>;
