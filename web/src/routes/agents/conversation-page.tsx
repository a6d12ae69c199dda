import { Link, useParams } from '@tanstack/react-router';
import { dateTime } from '../../api/client.ts';
import { useConversation } from '../../api/conversation-queries.ts';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AgentTabs } from './agent-tabs.tsx';
import { ConversationThread } from './conversation-thread.tsx';

/** One conversation of an agent: who had it, and its tree drawn one branch at a time. */
export function ConversationPage() {
  const { agentId, conversationId } = useParams({ from: '/app/agents/$agentId/conversations/$conversationId' });
  const conversation = useConversation(conversationId);
  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{agentId}</code>
        </h1>
      </div>
      <AgentTabs agentId={agentId} current="conversations" />
      <p>
        <Link to="/agents/$agentId/conversations" params={{ agentId }}>
          ← All conversations
        </Link>
      </p>
      {conversation.isPending ? (
        <Loading what="the conversation" />
      ) : conversation.error ? (
        <ErrorNote error={conversation.error} />
      ) : (
        <section className="card conversation" aria-labelledby="conversation-heading">
          <h2 id="conversation-heading">{conversation.data.title ?? 'Conversation'}</h2>
          <dl className="facts">
            <dt>Caller</dt>
            <dd>{conversation.data.key.caller}</dd>
            <dt>Key</dt>
            <dd>{conversation.data.key.name}</dd>
            <dt>Started</dt>
            <dd>{dateTime(conversation.data.created_at)}</dd>
            <dt>Id</dt>
            <dd>
              <code>{conversation.data.id}</code>
            </dd>
          </dl>
          <ConversationThread conversation={conversation.data} />
        </section>
      )}
    </>
  );
}
