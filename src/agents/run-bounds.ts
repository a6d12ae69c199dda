import type { LoadedAgent } from './agent-registry.ts';

/** The time and cost a run may take, on the run's one clock and one set of totals. */
export type RunBounds = { seconds?: number; costMicros?: number };

export const agentBounds = (agent: LoadedAgent): RunBounds => ({
  ...(agent.config.maxRunSeconds !== undefined && { seconds: agent.config.maxRunSeconds }),
  ...(agent.config.maxRunCostMicros !== undefined && { costMicros: agent.config.maxRunCostMicros }),
});

const lower = (a: number | undefined, b: number | undefined) => {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
};

/**
 * An agent inside a run (a sub-agent, a handoff's target) keeps the bounds of the agents
 * above it and adds its own: the whole run tree stays within the tightest of them.
 */
export const tighterBounds = (outer: RunBounds, own: RunBounds): RunBounds => {
  const seconds = lower(outer.seconds, own.seconds);
  const costMicros = lower(outer.costMicros, own.costMicros);
  return { ...(seconds !== undefined && { seconds }), ...(costMicros !== undefined && { costMicros }) };
};
