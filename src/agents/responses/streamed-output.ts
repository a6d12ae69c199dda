import type { OutputItem, StreamEvent } from './response-items.ts';

type Part = { type: string; text: string; annotations?: [] };

/**
 * A response's output as its stream events build it (items opened, text and arguments
 * streamed, items done), applied to a copy of `output`: what a GET of a running response
 * shows, the text already streamed included.
 */
export function applyStreamedEvents(output: readonly OutputItem[], events: readonly StreamEvent[]): OutputItem[] {
  const items = structuredClone(output) as OutputItem[];
  for (const event of events) {
    const index = typeof event['output_index'] === 'number' ? event['output_index'] : undefined;
    if (index === undefined || index > items.length) continue;
    switch (event.type) {
      case 'response.output_item.added':
      case 'response.output_item.done':
        items[index] = structuredClone(event['item']) as OutputItem;
        break;
      case 'response.content_part.added':
        contentOf(items[index])?.push(structuredClone(event['part']) as Part);
        break;
      case 'response.output_text.delta':
      case 'response.reasoning.delta': {
        const content = contentOf(items[index]);
        const at = typeof event['content_index'] === 'number' ? event['content_index'] : 0;
        if (content && at <= content.length && typeof event['delta'] === 'string') {
          content[at] ??= event.type === 'response.output_text.delta' ? { type: 'output_text', text: '', annotations: [] } : { type: 'reasoning_text', text: '' };
          (content[at] as Part).text += event['delta'];
        }
        break;
      }
      case 'response.function_call_arguments.delta':
      case 'response.mcp_call_arguments.delta': {
        const item = items[index];
        if (item && 'arguments' in item && typeof event['delta'] === 'string') item.arguments += event['delta'];
        break;
      }
      case 'response.function_call_arguments.done':
      case 'response.mcp_call_arguments.done': {
        const item = items[index];
        if (item && 'arguments' in item && typeof event['arguments'] === 'string') item.arguments = event['arguments'];
        break;
      }
    }
  }
  return items;
}

const contentOf = (item: OutputItem | undefined): Part[] | undefined => (item !== undefined && (item.type === 'message' || item.type === 'reasoning') ? (item.content as Part[]) : undefined);
