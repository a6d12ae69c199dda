import { z } from 'zod';

/**
 * How an evaluation scores an agent's run of a case, as written beside the agent
 * (`scorers:` in its YAML) or in an evaluation request. Most scorers read the case's
 * own expectations when they are not given a value; the scoring lives in src/evaluation.
 */

/** The longest rubric, pattern or text a scorer takes: tenant input, bounded. */
export const MAX_SCORER_TEXT = 4_000;
export const MAX_SCORERS = 20;

const LABEL = /^[a-zA-Z0-9_.-]{1,64}$/;
const label = z.string().regex(LABEL, 'letters, digits, "_", "." and "-", at most 64').optional();

const regexSource = z
  .string()
  .min(1)
  .max(MAX_SCORER_TEXT)
  .refine((source) => {
    try {
      new RegExp(source, 'u');
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid regular expression');

export const ScorerDeclarationSchema = z.discriminatedUnion('type', [
  /** The answer equals the case's reference, spaces at the ends and case aside unless `case_sensitive`. */
  z.strictObject({ type: z.literal('exact'), name: label, case_sensitive: z.boolean().default(false) }),
  /** The answer holds `value` (else the case's `must_contain`) and none of its `must_not_contain`. */
  z.strictObject({ type: z.literal('contains'), name: label, value: z.string().min(1).max(MAX_SCORER_TEXT).optional() }),
  /** The answer matches `pattern` (else the case's `regex`). */
  z.strictObject({ type: z.literal('regex'), name: label, pattern: regexSource.optional() }),
  /** The answer is JSON valid against `schema` (else the case's `json_schema`). */
  z.strictObject({ type: z.literal('json_schema'), name: label, schema: z.record(z.string(), z.unknown()).optional() }),
  /** The run called the tools the case expects, with matching arguments. */
  z.strictObject({ type: z.literal('tool_calls'), name: label }),
  /** The run retrieved and the answer cited the knowledge documents the case expects. */
  z.strictObject({ type: z.literal('cites'), name: label }),
  z.strictObject({ type: z.literal('latency'), name: label, max_ms: z.number().int().positive().max(86_400_000) }),
  z.strictObject({ type: z.literal('cost'), name: label, max_usd: z.number().positive().max(1_000) }),
  /** A model judges the whole run (every step, tool call and result) against the rubric: a score 0–1 and a reason. */
  z.strictObject({ type: z.literal('judge'), name: label, rubric: z.string().trim().min(1).max(MAX_SCORER_TEXT), model: z.string().min(1).max(200).optional() }),
]);

export type ScorerDeclaration = z.output<typeof ScorerDeclarationSchema>;
export type ScorerDeclarationInput = z.input<typeof ScorerDeclarationSchema>;

/** A list of scorers whose names (given, or their type) are unique: results are keyed by them. */
export const ScorerListSchema = z
  .array(ScorerDeclarationSchema)
  .max(MAX_SCORERS, `at most ${MAX_SCORERS} scorers`)
  .superRefine((scorers, context) => {
    const names = scorers.map(scorerName);
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index) context.addIssue({ code: 'custom', path: [index, 'name'], message: `two scorers are named "${name}": give one a name` });
    });
  });

/** The name a scorer's results go under. */
export const scorerName = (scorer: { type: string; name?: string | undefined }): string => scorer.name ?? scorer.type;
