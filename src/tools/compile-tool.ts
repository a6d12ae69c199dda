import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import * as zodCore from 'zod/v4/core';
import { usdToMicros } from '../core/money.ts';
import type { JsonSchema, ToolContext, ToolOutput } from './define-tool.ts';

/**
 * Turns whatever a tool file (or a built-in) exports into a LoadedTool: checked
 * fields, money in micros, a JSON Schema for the model and an argument parser. Zod
 * parameters are converted to JSON Schema; JSON Schema parameters get an Ajv
 * validator, so both flavours validate arguments before `execute` runs.
 */

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

export type ArgumentsCheck = { ok: true; value: unknown } | { ok: false; message: string };

export type LoadedTool = {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (no `$schema` key; providers reject it). */
  parameters: JsonSchema;
  costMicros: number;
  timeoutMs: number;
  /** `builtin:<file>` or the absolute file path. */
  source: string;
  /** Content hash of the file (or `builtin`), changes on every edit. */
  version: string;
  parseArguments(args: unknown): Promise<ArgumentsCheck>;
  execute(args: unknown, context: ToolContext): ToolOutput | Promise<ToolOutput>;
};

export type DefinitionIssue = { path: string; message: string };

/** An invalid tool export; `issues` carry the path inside the export. */
export class ToolDefinitionError extends Error {
  readonly issues: DefinitionIssue[];
  constructor(issues: DefinitionIssue[]) {
    super(issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
    this.name = 'ToolDefinitionError';
    this.issues = issues;
  }
}

const isZodSchema = (value: unknown): value is zodCore.$ZodType => typeof value === 'object' && value !== null && '_zod' in value;

const ToolExportSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"'),
  description: z.string().min(1),
  parameters: z.custom<zodCore.$ZodType | JsonSchema>(
    (value) => isZodSchema(value) || (typeof value === 'object' && value !== null && !Array.isArray(value)),
    'must be a JSON Schema object or a zod schema',
  ),
  cost_usd: z.union([z.number(), z.string()]).optional(),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(10 * 60_000)
    .optional(),
  execute: z.custom<(args: never, context: ToolContext) => unknown>((value) => typeof value === 'function', 'must be a function'),
});

// strict: an unknown keyword in a tool file is almost always a typo, refuse it at load.
const ajvOptions = { strict: true, allErrors: true, useDefaults: true } as const;
const ajv = new Ajv(ajvOptions);
const ajv2020 = new Ajv2020(ajvOptions);

export function compileTool(exported: unknown, source: string, version: string): LoadedTool {
  const parsed = ToolExportSchema.safeParse(exported);
  if (!parsed.success) {
    throw new ToolDefinitionError(describeZodIssues(parsed.error.issues));
  }
  const definition = parsed.data;
  const costMicros = parseCost(definition.cost_usd);
  const { parameters, parseArguments } = isZodSchema(definition.parameters) ? fromZod(definition.parameters) : fromJsonSchema(definition.parameters);
  if (parameters['type'] !== 'object') {
    throw new ToolDefinitionError([{ path: 'parameters', message: 'must describe an object (type: "object")' }]);
  }
  const execute = definition.execute as (args: unknown, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
  return {
    name: definition.name,
    description: definition.description,
    parameters,
    costMicros,
    timeoutMs: definition.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS,
    source,
    version,
    parseArguments,
    execute: (args, context) => execute(args, context),
  };
}

function parseCost(cost: number | string | undefined): number {
  if (cost === undefined) return 0;
  try {
    return usdToMicros(cost);
  } catch (error) {
    throw new ToolDefinitionError([{ path: 'cost_usd', message: (error as Error).message }]);
  }
}

function fromZod(schema: zodCore.$ZodType): Pick<LoadedTool, 'parameters' | 'parseArguments'> {
  let parameters: JsonSchema;
  try {
    // io "input": what the model must send (fields with defaults are optional).
    parameters = withoutSchemaKey(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }));
  } catch (error) {
    throw new ToolDefinitionError([{ path: 'parameters', message: `cannot be expressed as JSON Schema: ${(error as Error).message}` }]);
  }
  return {
    parameters,
    parseArguments: async (args) => {
      const result = await zodCore.safeParseAsync(schema, args);
      if (result.success) return { ok: true, value: result.data };
      return {
        ok: false,
        message: result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; '),
      };
    },
  };
}

function fromJsonSchema(schema: JsonSchema): Pick<LoadedTool, 'parameters' | 'parseArguments'> {
  const uses2020 = typeof schema['$schema'] === 'string' && schema['$schema'].includes('2020-12');
  let validate: ValidateFunction;
  try {
    validate = (uses2020 ? ajv2020 : ajv).compile(schema);
  } catch (error) {
    throw new ToolDefinitionError([{ path: 'parameters', message: `invalid JSON Schema: ${(error as Error).message}` }]);
  }
  return {
    parameters: withoutSchemaKey(schema),
    parseArguments: async (args) => {
      // Ajv applies defaults in place; validate a copy so the caller's object stays as given.
      const value: unknown = structuredClone(args);
      if (validate(value)) return { ok: true, value };
      return { ok: false, message: (validate.errors ?? []).map(formatAjvError).join('; ') };
    },
  };
}

function withoutSchemaKey(schema: Record<string, unknown>): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function formatAjvError(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return `${formatPath(segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)))}: ${error.message ?? 'is invalid'}`;
}

/** Zod issues as `path: message`; an unknown key is reported at its own path, which is where the typo is. */
export function describeZodIssues(issues: readonly z.core.$ZodIssue[]): DefinitionIssue[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'unknown key' })) : [{ path: formatPath(issue.path), message: issue.message }],
  );
}

/** ['tools', 1, 'name'] → "tools[1].name"; [] → "(root)". */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text === '' ? '(root)' : text;
}
