import type { RunStepView } from '@contract/runs.ts';

export const milliseconds = (value: number | null): string => {
  if (value === null) return '—';
  return value < 1_000 ? `${value} ms` : `${(value / 1_000).toFixed(2)} s`;
};

/** 2026-12-05T10:00:00.123Z → "5 Dec 2026, 10:00:00" in the browser's zone. */
export const timeWithSeconds = (iso: string | null): string => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' }) : '—');

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
