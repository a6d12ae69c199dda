import { z } from 'zod';

/**
 * The wire shapes of feedback on agent answers, shared by the Agents API, the console
 * API and the console itself. A score is a number from 0 to 1, or a thumb: `up` is 1 and
 * `down` is 0; an answer rated 0.5 or more counts as "up" in every sum and filter.
 */

const SCORE_RULE = "must be a number from 0 to 1, or 'up' or 'down'";

export const FeedbackScoreSchema = z.unknown().transform((value, context): { score: number; thumb: 'up' | 'down' | null } => {
  if (value === 'up' || value === 'down') return { score: value === 'up' ? 1 : 0, thumb: value };
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) return { score: value, thumb: null };
  context.addIssue({ code: 'custom', message: SCORE_RULE });
  return z.NEVER;
});

export const FEEDBACK_LABEL_MAX = 100;
export const FEEDBACK_COMMENT_MAX = 2000;
const METADATA_KEYS_MAX = 16;
const METADATA_JSON_MAX = 4096;

export const FeedbackInputSchema = z.strictObject({
  score: FeedbackScoreSchema,
  label: z.string().max(FEEDBACK_LABEL_MAX, `at most ${FEEDBACK_LABEL_MAX} characters`).nullish(),
  comment: z.string().max(FEEDBACK_COMMENT_MAX, `at most ${FEEDBACK_COMMENT_MAX} characters`).nullish(),
  metadata: z
    .record(z.string().min(1).max(64, 'keys of at most 64 characters'), z.unknown())
    .refine((entries) => Object.keys(entries).length <= METADATA_KEYS_MAX, `at most ${METADATA_KEYS_MAX} keys`)
    .refine((entries) => JSON.stringify(entries).length <= METADATA_JSON_MAX, `at most ${METADATA_JSON_MAX} characters as JSON`)
    .nullish(),
});
/** What a caller sends; `score` parsed into its number and the thumb it was given as. */
export type FeedbackInput = z.output<typeof FeedbackInputSchema>;

/** One feedback entry as every API shows it. */
export const FeedbackEntrySchema = z.object({
  id: z.string(),
  object: z.literal('feedback'),
  response_id: z.string().nullable(),
  message_id: z.string().nullable(),
  run_id: z.string().nullable(),
  agent_id: z.string(),
  agent_version: z.string().nullable(),
  score: z.number(),
  thumb: z.enum(['up', 'down']).nullable(),
  label: z.string().nullable(),
  comment: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  key_id: z.string().nullable(),
  created_at: z.number().int(),
});
export type FeedbackEntry = z.infer<typeof FeedbackEntrySchema>;

export const FeedbackListSchema = z.object({
  object: z.literal('list'),
  data: z.array(FeedbackEntrySchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});
export type FeedbackList = z.infer<typeof FeedbackListSchema>;

/** Rated "up" (0.5 or more) or "down" (below 0.5): the database decides, in agent_feedback_is_up (migration 0040). */
export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
