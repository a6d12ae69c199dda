import type { ConversationSummary } from '@contract/conversations.ts';
import { Link, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useAgentConversations } from '../../api/conversation-queries.ts';
import { useKeys, useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { SelectField } from '../../components/ui/field.tsx';
import { ListView } from '../../components/ui/query-view.tsx';
import { AgentTabs } from './agent-tabs.tsx';

/** An agent's conversations, made through the API or the playground: newest first, a page at a time, by key. */
export function AgentConversationsPage() {
  const { agentId } = useParams({ from: '/app/agents/$agentId/conversations' });
  const me = useSignedIn();
  const seesEveryKey = me?.role === 'owner' || me?.role === 'admin';
  const keys = useKeys('agent');
  const [keyId, setKeyId] = useState<string>();
  // The cursors of the pages before this one, so "Newer" goes back without a cursor of its own.
  const [cursors, setCursors] = useState<string[]>([]);
  const page = useAgentConversations(agentId, { keyId, cursor: cursors.at(-1) });

  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{agentId}</code>
        </h1>
      </div>
      <AgentTabs agentId={agentId} current="conversations" />
      <section className="card" aria-labelledby="conversations-heading">
        <h2 id="conversations-heading">Conversations</h2>
        <p className="muted">
          {seesEveryKey
            ? 'Every conversation with this agent in this account, through the API and the playground, newest first.'
            : 'Your own playground conversations with this agent; owners and admins see those made through the API too.'}
        </p>
        {seesEveryKey && (
          <SelectField
            label="Key"
            value={keyId ?? ''}
            onChange={(event) => {
              setKeyId(event.target.value || undefined);
              setCursors([]);
            }}
          >
            <option value="">Every key</option>
            {(keys.data?.data ?? []).map((key) => (
              <option key={key.id} value={key.id}>
                {key.name}
              </option>
            ))}
          </SelectField>
        )}
        <ListView query={page} what="conversations" empty="No conversations yet. Chat in the playground, or call the agent with an agent key.">
          {(conversations) => <ConversationsTable agentId={agentId} conversations={conversations} />}
        </ListView>
        <div className="dialog-actions">
          <Button onClick={() => setCursors((current) => current.slice(0, -1))} disabled={cursors.length === 0}>
            Newer
          </Button>
          <Button
            onClick={() => {
              const next = page.data?.next_cursor;
              if (next) setCursors((current) => [...current, next]);
            }}
            disabled={!page.data?.next_cursor}
          >
            Older
          </Button>
        </div>
      </section>
    </>
  );
}

function ConversationsTable({ agentId, conversations }: { agentId: string; conversations: ConversationSummary[] }) {
  return (
    <DataTable label="Conversations" columns={['First message', 'Caller', 'Key', 'Messages', 'Started', 'Last message']}>
      {conversations.map((conversation) => (
        <tr key={conversation.id}>
          <td>
            <Link to="/agents/$agentId/conversations/$conversationId" params={{ agentId, conversationId: conversation.id }}>
              {conversation.title ?? `(no text) ${conversation.id}`}
            </Link>
          </td>
          <td>{conversation.key.caller}</td>
          <td>
            {conversation.key.name}
            <div className="muted small">{conversation.key.source === 'playground' ? 'playground' : 'API'}</div>
          </td>
          <td>{conversation.message_count}</td>
          <td>{dateTime(conversation.created_at)}</td>
          <td>{dateTime(conversation.updated_at)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
