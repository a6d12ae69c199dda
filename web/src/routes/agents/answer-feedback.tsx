import { FEEDBACK_COMMENT_MAX } from '@contract/feedback.ts';
import { type FormEvent, useState } from 'react';
import { useGiveFeedback } from '../../api/feedback-queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';

type Thumb = 'up' | 'down';

/**
 * Thumbs up or down on a playground answer, with an optional comment: sent as feedback
 * on its response, as an app's users give it, and counted for the version that answered.
 */
export function AnswerFeedback({ responseId }: { responseId: string }) {
  const [thumb, setThumb] = useState<Thumb | null>(null);
  const [comment, setComment] = useState('');
  const give = useGiveFeedback(responseId);
  if (give.data) {
    return (
      <p className="muted small answer-feedback" role="status">
        Feedback sent: {give.data.thumb === 'up' ? 'good answer' : 'bad answer'}
        {give.data.comment ? ', with a comment' : ''}.
      </p>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (thumb) give.mutate({ score: thumb, comment: comment.trim() });
  };
  return (
    <form className="answer-feedback" aria-label="Feedback on this answer" onSubmit={submit}>
      <div role="group" aria-label="Rate this answer" className="answer-feedback-thumbs">
        <Button variant="ghost" aria-label="Good answer" title="Good answer" aria-pressed={thumb === 'up'} onClick={() => setThumb('up')}>
          <span aria-hidden="true">👍</span>
        </Button>
        <Button variant="ghost" aria-label="Bad answer" title="Bad answer" aria-pressed={thumb === 'down'} onClick={() => setThumb('down')}>
          <span aria-hidden="true">👎</span>
        </Button>
      </div>
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
