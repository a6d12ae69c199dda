import { stringify } from 'yaml';
import type { AgentConfig, AgentFile } from './agent-config-schema.ts';
import type { LoadedAgent } from './agent-registry.ts';

/**
 * A loaded agent back in the file format (snake_case, instructions inline): what the
 * console edits and saves, what "Duplicate" copies from a file agent, and what
 * "Export" writes as YAML. Defaults are left out, as a person would write the file.
 */
export function toAgentFile(agent: Pick<LoadedAgent, 'config' | 'instructions'>): AgentFile {
  const config: AgentConfig = agent.config;
  return {
    name: config.name,
    ...(config.description && { description: config.description }),
    model: config.model,
    ...(config.fallbackModels.length > 0 && { fallback_models: config.fallbackModels }),
    instructions: agent.instructions,
    ...(config.tools.length > 0 && { tools: config.tools.map((name) => (config.approvalTools.includes(name) ? { name, require_approval: true } : name)) }),
    ...(config.knowledge.length > 0 && { knowledge: config.knowledge }),
    ...(config.temperature !== undefined && { temperature: config.temperature }),
    ...(config.maxOutputTokens !== undefined && { max_output_tokens: config.maxOutputTokens }),
    ...(config.reasoning && { reasoning: config.reasoning }),
    max_steps: config.maxSteps,
    ...(config.agents.length > 0 && { agents: config.agents }),
    ...(config.handoffs.length > 0 && { handoffs: config.handoffs }),
    ...(config.maxRunSeconds !== undefined && { max_run_seconds: config.maxRunSeconds }),
    ...(config.maxRunCostMicros !== undefined && { max_run_cost_usd: (config.maxRunCostMicros / 1_000_000).toString() }),
    ...(config.scorers && config.scorers.length > 0 && { scorers: config.scorers }),
  };
}

/** The YAML of an agent file, with its owner when it has one. */
export function toAgentYaml(file: AgentFile, account?: string): string {
  return stringify(account ? { account, ...file } : file, { lineWidth: 0 });
}
