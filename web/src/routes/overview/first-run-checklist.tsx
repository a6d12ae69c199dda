import type { Overview } from '@contract/overview.ts';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type ReactNode, useEffect, useState } from 'react';
import { useKeys } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { checklistHidden, hideChecklist, snippetCopied } from './checklist-storage.ts';
import { useFirstCall } from './overview-queries.ts';
import { SnippetTabs } from './snippet-tabs.tsx';

function Step({ done, title, children }: { done: boolean; title: string; children?: ReactNode }) {
  return (
    <li className={done ? 'step-done' : 'step-todo'}>
      <p className="step-title">
        <span aria-hidden="true" className="step-mark">
          {done ? '✓' : '○'}
        </span>
        <span className="visually-hidden">{done ? 'Done: ' : 'To do: '}</span>
        {title}
      </p>
      {!done && children}
    </li>
  );
}

/**
 * The way to a first call, on the Overview until every step is done (or it is hidden):
 * credit, a key, a snippet copied, the call seen in the log (asked every few seconds).
 */
export function FirstRunChecklist({ accountId, overview }: { accountId: string; overview: Overview }) {
  const client = useQueryClient();
  const [hidden, setHidden] = useState(() => checklistHidden(accountId));
  const [copied, setCopied] = useState(() => snippetCopied(accountId));
  const keys = useKeys('model');
  const credit = overview.balance.granted_usd > 0 || overview.balance.usd > 0;
  const key = (keys.data?.data.length ?? 0) > 0;
  const firstCall = useFirstCall(!hidden);
  const called = firstCall.data === true;

  // The first call's spend and request are on the Overview too: read it again when the call shows up.
  useEffect(() => {
    if (called) void client.invalidateQueries({ queryKey: ['overview'] });
  }, [called, client]);

  const steps = [credit, key, copied || called, called];
  if (hidden || (firstCall.isSuccess && steps.every(Boolean))) return null;
  const doneCount = steps.filter(Boolean).length;

  return (
    <section className="card checklist" aria-labelledby="checklist-heading">
      <div className="section-header">
        <h2 id="checklist-heading">Get started</h2>
        <Button
          variant="ghost"
          onClick={() => {
            hideChecklist(accountId);
            setHidden(true);
          }}
        >
          Hide this checklist
        </Button>
      </div>
      <p className="muted small">{`${doneCount} of ${steps.length} steps done: from here to a first model call, without the command line.`}</p>
      <ol className="plain checklist-steps">
        <Step done={credit} title="Add credit">
          <p className="small step-text">
            Calls answer 402 until the account has credit. <Link to="/credits">Add credit</Link>
          </p>
        </Step>
        <Step done={key} title="Create a key">
          <p className="small step-text">
            A model key lets a program call any model of the catalog. <Link to="/keys">Create a key</Link>
          </p>
        </Step>
        <Step done={copied || called} title="Copy a ready-made snippet">
          <p className="small step-text">Right after a key is created its notice offers these snippets with the key filled in.</p>
          <SnippetTabs onCopied={() => setCopied(true)} />
        </Step>
        <Step done={called} title="Make the call and see it appear">
          <p className="small step-text" role="status">
            Waiting for the first call: it shows up here within seconds.
          </p>
        </Step>
      </ol>
    </section>
  );
}
