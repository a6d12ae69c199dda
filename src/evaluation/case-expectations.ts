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

/** Arguments given as `{"regex": "…"}` alone are a pattern over the arguments' JSON text (scorers read them so). */
export const isArgumentsPattern = (value: Record<string, unknown>): value is { regex: string } => Object.keys(value).length === 1 && typeof value['regex'] === 'string';

/**
 * The arguments a tool call must match: a pattern (above), otherwise an object whose fields
 * the call's arguments must hold (a subset match). A pattern that does not compile is
 * refused here rather than taken as a field named "regex".
 */
export const ToolCallArgumentsSchema = z.record(z.string(), z.unknown()).superRefine((value, context) => {
  if (!isArgumentsPattern(value)) return;
  const pattern = ExpectationPatternSchema.safeParse(value.regex);
  for (const issue of pattern.error?.issues ?? []) context.addIssue({ code: 'custom', message: issue.message, path: ['regex'] });
});

export const ToolCallExpectationSchema = z.strictObject({
  name: z.string().min(1).max(200),
  arguments: ToolCallArgumentsSchema.optional(),
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
