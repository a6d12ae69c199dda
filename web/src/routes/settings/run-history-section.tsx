import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { useRunHistorySetting, useSetRunHistory } from '../runs/run-queries.ts';

const CHOICES = [
  { value: 'content', label: 'Keep content', hint: 'Prompts, answers, tool arguments and results are kept with each step (cut when long).' },
  { value: 'metadata', label: 'Metadata only', hint: 'Steps keep their kind, name, tokens, cost and time; nothing anyone wrote or received. Content already kept is deleted.' },
] as const;

/** Whether run pages keep what was said (privacy): owners and admins choose, members see the choice. */
export function RunHistorySection({ canManage }: { canManage: boolean }) {
  const setting = useRunHistorySetting();
  const save = useSetRunHistory();
  return (
    <section className="card" aria-labelledby="run-history-title">
      <h2 id="run-history-title">Run history</h2>
      {setting.isPending && <Loading what="the run history setting" />}
      {setting.error && <ErrorNote error={setting.error} />}
      {setting.data && (
        <fieldset disabled={!canManage || save.isPending}>
          <legend>What run pages keep of each step</legend>
          {CHOICES.map((choice) => (
            <label key={choice.value} className="choice">
              <input type="radio" name="run-history" value={choice.value} checked={setting.data.keep === choice.value} onChange={() => save.mutate({ keep: choice.value })} /> {choice.label}{' '}
              <span className="muted small">{choice.hint}</span>
            </label>
          ))}
        </fieldset>
      )}
      {save.error && <ErrorNote error={save.error} />}
      {!canManage && <p className="muted">Only owners and admins change this.</p>}
    </section>
  );
}
