import { z } from 'zod';
import { defineTool } from '../define-tool.ts';

export const MAX_EXPRESSION_LENGTH = 1_000;

/**
 * mathjs is slow to load and most agents never do arithmetic: the evaluator
 * (safe-math.ts) is loaded at the first call, not when the server starts.
 */
let safeMath: Promise<typeof import('./safe-math.ts')> | undefined;

export const calculatorTool = defineTool({
  name: 'calculator',
  description:
    'Evaluates a math expression exactly (decimal arithmetic, 15 significant digits). Supports + - * / ^ %, ' +
    'parentheses, functions such as sqrt, round, log, sin, min, max, mean, and unit conversion ("5 km to mile"). ' +
    'Several statements may be separated by ";" and use variables ("a = 3; a * 2").',
  parameters: z.object({
    expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH).describe('The expression, e.g. "(12.5 * 3) / 4"'),
  }),
  execute: async ({ expression }) => (await (safeMath ??= import('./safe-math.ts'))).calculate(expression),
});
