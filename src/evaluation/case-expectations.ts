import { z } from 'zod';

/** The longest pattern a case may hold: scorers run it over answers, so it stays short. */
export const EXPECTATION_PATTERN_LIMIT = 500;
const TEXT_LIMIT = 2_000;
const LIST_LIMIT = 50;

const compiles = (pattern: string): boolean => {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
};

/** A JavaScript regular expression (Unicode mode) that must compile, so a bad one is refused where it is written. */
export const ExpectationPatternSchema = z.string().min(1).max(EXPECTATION_PATTERN_LIMIT).refine(compiles, 'not a valid regular expression');

/** Arguments a tool call must match: a pattern over the arguments' JSON text. */
export const ArgumentsPatternSchema = z.strictObject({ regex: ExpectationPatternSchema });

/** Otherwise an object whose fields the call's arguments must hold (a subset match). */
export const ArgumentsSubsetSchema = z.record(z.string(), z.unknown());

export const ToolCallExpectationSchema = z.strictObject({
  name: z.string().min(1).max(200),
  arguments: z.union([ArgumentsPatternSchema, ArgumentsSubsetSchema]).optional(),
});
export type ToolCallExpectation = z.infer<typeof ToolCallExpectationSchema>;

const TextsSchema = z.array(z.string().min(1).max(TEXT_LIMIT)).max(LIST_LIMIT);

/**
 * What a case expects of a run besides its reference answer: tools it must call (with
 * arguments matching), knowledge documents it must retrieve and cite (by name or id),
 * texts the answer must or must not hold, a pattern and a JSON schema the answer must match.
 */
export const caseExpectationsSchema = z.strictObject({
  tool_calls: z.array(ToolCallExpectationSchema).max(LIST_LIMIT).optional(),
  cites: TextsSchema.optional(),
  must_contain: TextsSchema.optional(),
  must_not_contain: TextsSchema.optional(),
  regex: ExpectationPatternSchema.optional(),
  json_schema: z.record(z.string(), z.unknown()).optional(),
});
export type CaseExpectations = z.infer<typeof caseExpectationsSchema>;
