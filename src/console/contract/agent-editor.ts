import { z } from 'zod';

/**
 * What the console's agent editor saves: the agent's fields (the server validates
 * them with the console's own agent schema, so this stays loose here), a change note
 * for the version history.
 */
export const SaveAgentSchema = z.strictObject({
  definition: z.record(z.string(), z.unknown()),
  change_note: z.string().max(500).nullable().optional(),
  /** Publish the new version at once instead of keeping it a draft. */
  publish: z.boolean().optional(),
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
  /** Console agents: every saved version, newest first; the published one, the newest (a draft when above it) and a staged release. */
  versions: z.array(AgentVersionSchema),
  published_version: z.number().nullable(),
  newest_version: z.number().nullable(),
  staged: z.object({ version: z.number(), share: z.number() }).nullable(),
  /** A stored console agent that today's rules refuse (it does not run until saved again): why. */
  issues: z.array(AgentIssueSchema).optional(),
});
export type AgentDetail = z.infer<typeof AgentDetailSchema>;

export const RollbackSchema = z.strictObject({ version: z.number().int().positive() });
export const PublishSchema = RollbackSchema;
/** A staged release: `version` serves `share` percent of conversations, the published version the rest. */
export const StageSchema = z.strictObject({ version: z.number().int().positive(), share: z.number().int().min(1).max(99) });

export const SavedAgentSchema = z.object({ id: z.string(), version: z.number(), published: z.boolean().optional() });
export const ReleasedSchema = z.object({ id: z.string(), published_version: z.number(), staged: z.object({ version: z.number(), share: z.number() }).nullable() });
export type Released = z.infer<typeof ReleasedSchema>;

export const AuditActionSchema = z.enum(['created', 'saved', 'published', 'rolled_back', 'staged', 'promoted', 'aborted', 'deleted']);
export const AuditEntrySchema = z.object({
  action: AuditActionSchema,
  version: z.number().nullable(),
  previous_version: z.number().nullable(),
  share: z.number().nullable(),
  actor: z.string().nullable(),
  created_at: z.string(),
});
export const AuditListSchema = z.object({ data: z.array(AuditEntrySchema) });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const DiffQuerySchema = z.strictObject({ from: z.coerce.number().int().positive(), to: z.coerce.number().int().positive() });
/** Two versions' YAML, line by line: kept, removed (only in `from`) or added (only in `to`). */
export const VersionDiffSchema = z.object({
  from: z.number(),
  to: z.number(),
  lines: z.array(z.object({ kind: z.enum(['same', 'removed', 'added']), text: z.string() })),
});
export type VersionDiff = z.infer<typeof VersionDiffSchema>;

export const ToolInfoSchema = z.object({ name: z.string(), description: z.string() });
export const EditorOptionsSchema = z.object({ tools: z.array(ToolInfoSchema), knowledge: z.array(z.string()), models: z.array(z.string()) });
export type EditorOptions = z.infer<typeof EditorOptionsSchema>;
