import { z } from 'zod';
import { FEEDBACK_RATINGS, FeedbackEntrySchema } from '../../agents/feedback/feedback-schemas.ts';

export { FEEDBACK_COMMENT_MAX, FEEDBACK_RATINGS, type FeedbackEntry, FeedbackEntrySchema, FeedbackListSchema, type FeedbackRating } from '../../agents/feedback/feedback-schemas.ts';

/** One version's feedback on the agent page: how many entries, their mean score, how many rated up (0.5 or more) and down. */
export const VersionFeedbackSchema = z.object({
  version: z.string().nullable(),
  count: z.number(),
  mean_score: z.number(),
  up: z.number(),
  down: z.number(),
  last_at: z.string(),
});
export type VersionFeedback = z.infer<typeof VersionFeedbackSchema>;

export const FeedbackSummarySchema = z.object({ agent_id: z.string(), versions: z.array(VersionFeedbackSchema) });
export type FeedbackSummary = z.infer<typeof FeedbackSummarySchema>;

/** The account's feedback, newest first: the runs people rated, filtered by agent, version and rating. */
export const FeedbackSearchQuerySchema = z.strictObject({
  agent_id: z.string().min(1).max(64).optional(),
  agent_version: z.string().min(1).max(64).optional(),
  rating: z.enum(FEEDBACK_RATINGS).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, 'a cursor from next_cursor')
    .optional(),
});
export type FeedbackSearchQuery = z.input<typeof FeedbackSearchQuerySchema>;

export const FeedbackPageSchema = z.object({ data: z.array(FeedbackEntrySchema), next_cursor: z.string().nullable() });
export type FeedbackPage = z.infer<typeof FeedbackPageSchema>;
