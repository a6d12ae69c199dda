import type { RunStepView } from '@contract/runs.ts';

export const milliseconds = (value: number | null): string => {
  if (value === null) return '—';
  return value < 1_000 ? `${value} ms` : `${(value / 1_000).toFixed(2)} s`;
};

// The Usage page's formatter, so a call reads the same on both pages.
export { timeWithSeconds } from '../usage/local-dates.ts';

export const KIND_NAMES: Record<RunStepView['kind'], string> = {
  retrieval: 'Knowledge search',
  model: 'Model call',
  tool: 'Tool call',
  mcp: 'MCP tool call',
  agent: 'Sub-agent',
  handoff: 'Handoff',
  approval: 'Approval',
};

/** Steps nested as they ran: children under the step that made them, each level in start order. */
export type StepNode = { step: RunStepView; children: StepNode[] };

export function stepTree(steps: RunStepView[]): StepNode[] {
  const nodes = new Map(steps.map((step) => [step.id, { step, children: [] as StepNode[] }]));
  const roots: StepNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.step.parent_step_id ? nodes.get(node.step.parent_step_id) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}
