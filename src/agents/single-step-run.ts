import type { AgentGraphState, RunHooks } from './agent-graph.ts';
import { modelStep } from './agent-graph.ts';
import type { RunEvent } from './run-events.ts';

/**
 * The run of an agent without server-side tools: load history → retrieve → one model
 * step, the graph's own nodes in the graph's order. Such a run can neither loop nor
 * pause (only the tools node interrupts), so the graph would add nothing but its
 * per-node machinery, about two thirds of a plain turn's own CPU. The caller takes this
 * path only for a run that would not be checkpointed anyway: not resumed, not kept, not
 * written step by step. Yields the run's events as they happen; returns its last state.
 */
export async function* runSingleStep(hooks: RunHooks): AsyncGenerator<RunEvent, Partial<AgentGraphState>> {
  const events = new EventQueue<RunEvent>();
  const work = (async (): Promise<Partial<AgentGraphState>> => {
    const messages = await hooks.initialMessages();
    const context = await hooks.retrieve(events.push);
    const update = await modelStep({ messages, context, steps: 0 }, hooks, events.push);
    return { ...update, messages: [...messages, ...(update.messages ?? [])], context, steps: update.steps ?? 0, initialCount: messages.length };
  })().finally(events.end);
  // The work's rejection is taken by `await work` below, after the events before it are out.
  work.catch(() => undefined);
  yield* events;
  return await work;
}

/** Events pushed by callbacks, read once as an async iterable that ends with `end()`. */
class EventQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  push = (item: T): void => {
    this.#items.push(item);
    this.#wake?.();
  };

  end = (): void => {
    this.#ended = true;
    this.#wake?.();
  };

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#items.length > 0) {
        const items = this.#items;
        this.#items = [];
        yield* items;
      } else if (this.#ended) return;
      else {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
      }
    }
  }
}
