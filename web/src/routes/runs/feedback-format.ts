import type { FeedbackEntry } from '@contract/feedback.ts';

/** A score as people gave it: a thumb in words, or the number from 0 to 1. */
export function feedbackScore(entry: Pick<FeedbackEntry, 'score' | 'thumb'>): string {
  if (entry.thumb === 'up') return 'Thumbs up';
  if (entry.thumb === 'down') return 'Thumbs down';
  return entry.score.toFixed(2);
}
