import type { LoadedTool } from './compile-tool.ts';
import type { ToolContext } from './define-tool.ts';
import { overlay } from '../core/overlay.ts';
import { boundToolContent, MAX_TOOL_CONTENT_CHARS } from './tool-content-bound.ts';

/**
 * Runs one tool call for the agent runtime. It never throws: invalid arguments, a
 * thrown error, a timeout or a cancelled run all come back as `ok: false` with an
 * "Error: …" text, which the runtime hands to the model as an error tool result so
 * the run continues (the OpenAI Agents SDK behaviour).
 */

export type ToolRunResult = {
  ok: boolean;
  /** What the model sees: the tool's string, or its JSON, or "Error: …". */
  content: string;
  /** `cost_usd` in micro-USD; charged once `execute` has started, even if it then fails. */
  costMicros: number;
  durationMs: number;
};

export type RunToolOptions = {
  /** Caps what goes back to the model; a runaway tool must not flood the context. */
  maxContentChars?: number;
};

/**
 * `args` is the parsed arguments object, or the JSON text exactly as the model
 * produced it (ToolCallPart.arguments); an empty string means no arguments.
 */
export async function runTool(tool: LoadedTool, args: unknown, context: ToolContext, options: RunToolOptions = {}): Promise<ToolRunResult> {
  const started = performance.now();
  const finish = (ok: boolean, content: string, costMicros: number): ToolRunResult => ({
    ok,
    content: boundToolContent(content, options.maxContentChars ?? MAX_TOOL_CONTENT_CHARS),
    costMicros,
    durationMs: Math.round(performance.now() - started),
  });

  let decoded: unknown;
  try {
    if (typeof args !== 'string') decoded = args ?? {};
    else decoded = args.trim() === '' ? {} : JSON.parse(args);
  } catch {
    return finish(false, `Error: the arguments of ${tool.name} are not valid JSON`, 0);
  }
  let check;
  try {
    check = await tool.parseArguments(decoded);
  } catch (error) {
    return finish(false, `Error: ${describe(error)}`, 0);
  }
  if (!check.ok) return finish(false, `Error: invalid arguments for ${tool.name}: ${check.message}`, 0);
  if (context.signal.aborted) return finish(false, 'Error: the run was cancelled', 0);

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ToolTimeoutError(tool.timeoutMs)), tool.timeoutMs);
  const signal = AbortSignal.any([context.signal, controller.signal]);
  try {
    // The race makes a tool that ignores its signal still time out; its promise is
    // left to settle on its own.
    const output = await Promise.race([Promise.resolve().then(() => tool.execute(check.value, overlay(context, { signal }))), rejectOnAbort(signal)]);
    return finish(true, normalise(output), tool.costMicros);
  } catch (error) {
    if (error instanceof ToolTimeoutError) return finish(false, `Error: ${tool.name} timed out after ${tool.timeoutMs} ms`, tool.costMicros);
    if (context.signal.aborted) return finish(false, 'Error: the run was cancelled', tool.costMicros);
    context.logger?.warn({ tool: tool.name, error: describe(error) }, 'tool failed');
    return finish(false, `Error: ${describe(error)}`, tool.costMicros);
  } finally {
    clearTimeout(timer);
  }
}

class ToolTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'ToolTimeoutError';
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function normalise(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '(no output)';
  try {
    const text = JSON.stringify(output);
    return text ?? String(output);
  } catch (error) {
    // Circular or BigInt results: still the tool's success, so say what came back.
    return `(unserialisable result: ${describe(error)})`;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : 'unknown error';
}
