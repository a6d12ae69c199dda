import { z } from 'zod';

/** An agent as the console lists it (file agents are read-only and show their path). */
export const ConsoleAgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  model: z.string(),
  source: z.enum(['file', 'console']),
  /** File agents only: the YAML's path (console agents are edited in the console). */
  path: z.string().nullable(),
  version: z.string(),
  tools: z.array(z.string()),
  knowledge: z.array(z.string()),
  updated_at: z.string(),
});
export type ConsoleAgent = z.infer<typeof ConsoleAgentSchema>;
export const AgentListSchema = z.object({ data: z.array(ConsoleAgentSchema) });
