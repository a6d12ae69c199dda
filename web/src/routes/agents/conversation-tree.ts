import type { ConversationNode } from '@contract/conversations.ts';

/** A conversation tree indexed for drawing one branch: children per parent, in append order. */
export type Tree = { children: Map<string | null, ConversationNode[]>; newest: Map<string, number> };

export function indexTree(nodes: readonly ConversationNode[]): Tree {
  const children = new Map<string | null, ConversationNode[]>();
  for (const node of nodes) children.set(node.parent_id, [...(children.get(node.parent_id) ?? []), node]);
  // The newest position in each subtree: by default a fork follows the branch written last.
  const newest = new Map<string, number>();
  for (let index = nodes.length - 1; index >= 0; index--) {
    const node = nodes[index] as ConversationNode;
    newest.set(node.id, Math.max(index, ...(children.get(node.id) ?? []).map((child) => newest.get(child.id) ?? 0)));
  }
  return { children, newest };
}

/** The siblings of a node (itself included) and where it stands among them. */
export function siblingsOf(tree: Tree, node: ConversationNode): { siblings: ConversationNode[]; position: number } {
  const siblings = tree.children.get(node.parent_id) ?? [node];
  return { siblings, position: siblings.findIndex((sibling) => sibling.id === node.id) };
}

/**
 * The branch shown: from the root, at each fork the child `chosen` names for that parent,
 * else the child holding the newest message below it.
 */
export function branchPath(tree: Tree, chosen: ReadonlyMap<string | null, string>): ConversationNode[] {
  const path: ConversationNode[] = [];
  for (let parent: string | null = null; ; ) {
    const children: ConversationNode[] = tree.children.get(parent) ?? [];
    const picked: ConversationNode | undefined = children.find((child) => child.id === chosen.get(parent));
    const next: ConversationNode | undefined = picked ?? newestOf(tree, children);
    if (!next) return path;
    path.push(next);
    parent = next.id;
  }
}

const newestOf = (tree: Tree, children: readonly ConversationNode[]): ConversationNode | undefined =>
  children.reduce<ConversationNode | undefined>((best, child) => (best && (tree.newest.get(best.id) ?? 0) >= (tree.newest.get(child.id) ?? 0) ? best : child), undefined);

/** One turn: the message that opened it (a user's, or the first node) and what answered it. */
export type Turn = { opening: ConversationNode; answer: ConversationNode[] };

export function turnsOf(path: readonly ConversationNode[]): Turn[] {
  const turns: Turn[] = [];
  for (const node of path) {
    const current = turns.at(-1);
    if (!current || node.role === 'user') turns.push({ opening: node, answer: [] });
    else current.answer.push(node);
  }
  return turns;
}

/** A drawn tool step: the call an assistant made and the result a tool node gave it. */
export type ToolStep = { id: string; name: string; arguments: string; result: string | undefined; isError: boolean };

/** An answer's steps in order: reasoning, tool calls with their results, text. */
export type AnswerStep = { kind: 'reasoning'; id: string; text: string } | ({ kind: 'tool' } & ToolStep) | { kind: 'text'; id: string; text: string };

/** `answer`'s steps; `turn` is the whole answer it belongs to, where its calls' results are found. */
export function answerSteps(answer: readonly ConversationNode[], turn: readonly ConversationNode[] = answer): AnswerStep[] {
  const results = new Map(turn.flatMap((node) => (node.role === 'tool' && node.tool_call_id ? [[node.tool_call_id, node] as const] : [])));
  const steps: AnswerStep[] = [];
  for (const node of answer) {
    if (node.deleted) {
      steps.push({ kind: 'text', id: node.id, text: '(deleted)' });
    } else if (node.role === 'assistant') {
      if (node.reasoning) steps.push({ kind: 'reasoning', id: `${node.id}-reasoning`, text: node.reasoning });
      for (const call of node.tool_calls) {
        const result = results.get(call.id);
        steps.push({ kind: 'tool', id: `${node.id}-${call.id}`, name: call.name, arguments: call.arguments, result: result?.text, isError: result?.is_error ?? false });
      }
      if (node.text) steps.push({ kind: 'text', id: node.id, text: node.text });
    } else if (node.role === 'tool' && !turn.some((other) => other.tool_calls.some((call) => call.id === node.tool_call_id))) {
      // A client's tool result answers a call of the turn before.
      steps.push({ kind: 'tool', id: node.id, name: node.tool_name ?? 'tool', arguments: '', result: node.text, isError: node.is_error });
    } else if (node.role === 'system') {
      steps.push({ kind: 'text', id: node.id, text: node.text });
    }
  }
  return steps;
}

/** The distinct runs that produced an answer, in order. */
export const runsOf = (answer: readonly ConversationNode[]): string[] => [...new Set(answer.flatMap((node) => (node.run_id ? [node.run_id] : [])))];
