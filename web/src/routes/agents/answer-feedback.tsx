import { FEEDBACK_COMMENT_MAX, type FeedbackEntry } from '@contract/feedback.ts';
import { type FormEvent, useState } from 'react';
import { useAnswerFeedback, useGiveFeedback } from '../../api/feedback-queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import './answer-feedback.css';

type Thumb = 'up' | 'down';

const rating = (entry: Pick<FeedbackEntry, 'score' | 'thumb'>): string => {
  if (entry.thumb === 'up') return 'good answer';
  if (entry.thumb === 'down') return 'bad answer';
  return `score ${entry.score.toFixed(2)}`;
};

/** A thumb drawn as an outline (the down one is the same turned over), so it shows without an emoji font. */
const ThumbIcon = () => (
  <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
    <path d="M7 10v12" />
    <path d="M15 5.88 14 10h5.83a2 2 0 0 1 1.92 2.56l-2.33 8A2 2 0 0 1 17.5 22H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.76a2 2 0 0 0 1.79-1.11L12 2a3.13 3.13 0 0 1 3 3.88Z" />
  </svg>
);

/**
 * Thumbs up or down on a playground answer, with an optional comment: sent as feedback
 * on its response, as an app's users give it, and counted for the version that answered.
 */
export function AnswerFeedback({ responseId }: { responseId: string }) {
  const [thumb, setThumb] = useState<Thumb | null>(null);
  const [comment, setComment] = useState('');
  const [again, setAgain] = useState(false);
  const given = useAnswerFeedback(responseId);
  const give = useGiveFeedback(responseId);
  if (given.isPending) return null;
  const latest = give.data ?? given.data;
  if (latest && !again) {
    return (
      <p className="muted small answer-feedback" role="status">
        {give.data ? 'Feedback sent' : 'Rated'}: {rating(latest)}
        {latest.comment ? ', with a comment' : ''}.{' '}
        <Button
          variant="ghost"
          onClick={() => {
            give.reset();
            setThumb(null);
            setComment('');
            setAgain(true);
          }}
        >
          Rate again
        </Button>
      </p>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (thumb) give.mutate({ score: thumb, comment: comment.trim() }, { onSuccess: () => setAgain(false) });
  };
  return (
    <form className="answer-feedback" aria-label="Feedback on this answer" onSubmit={submit}>
      <fieldset aria-label="Rate this answer" className="answer-feedback-thumbs unframed">
        <Button aria-pressed={thumb === 'up'} onClick={() => setThumb('up')}>
          <ThumbIcon />
          Good answer
        </Button>
        <Button className="thumb-down" aria-pressed={thumb === 'down'} onClick={() => setThumb('down')}>
          <ThumbIcon />
          Bad answer
        </Button>
      </fieldset>
      {thumb && (
        <>
          <TextAreaField label="Comment (optional)" value={comment} maxLength={FEEDBACK_COMMENT_MAX} rows={2} onChange={(event) => setComment(event.target.value)} />
          <Button type="submit" variant="primary" disabled={give.isPending}>
            Send feedback
          </Button>
        </>
      )}
      {give.error && (
        <p className="field-error" role="alert">
          {give.error.message}
        </p>
      )}
    </form>
  );
}
