import type { ConversationDetail } from '@contract/conversations.ts';
import { Link, useParams } from '@tanstack/react-router';
import { dateTime } from '../../api/client.ts';
import { useConversation } from '../../api/conversation-queries.ts';
import { QueryView } from '../../components/ui/query-view.tsx';
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
      <QueryView query={conversation} what="the conversation">
        {(data) => <ConversationCard conversation={data} />}
      </QueryView>
    </>
  );
}

function ConversationCard({ conversation }: { conversation: ConversationDetail }) {
  return (
    <section className="card conversation" aria-labelledby="conversation-heading">
      <h2 id="conversation-heading">{conversation.title ?? 'Conversation'}</h2>
      <dl className="facts">
        <dt>Caller</dt>
        <dd>{conversation.key.caller}</dd>
        <dt>Key</dt>
        <dd>{conversation.key.name}</dd>
        <dt>Started</dt>
        <dd>{dateTime(conversation.created_at)}</dd>
        <dt>Id</dt>
        <dd>
          <code>{conversation.id}</code>
        </dd>
      </dl>
      <ConversationThread conversation={conversation} />
    </section>
  );
}
