import { Link } from '@tanstack/react-router';
import './conversations.css';

/** The sections of an agent's page: build and try it, read the conversations it had, or evaluate its versions. */
export function AgentTabs({ agentId, current }: { agentId: string; current: 'agent' | 'conversations' | 'evaluations' }) {
  return (
    <nav className="agent-tabs" aria-label="Agent sections">
      <Link to="/agents/$agentId" params={{ agentId }} className="agent-tab" aria-current={current === 'agent' ? 'page' : undefined} activeOptions={{ exact: true }}>
        Build and try
      </Link>
      <Link to="/agents/$agentId/conversations" params={{ agentId }} className="agent-tab" aria-current={current === 'conversations' ? 'page' : undefined}>
        Conversations
      </Link>
      <Link to="/agents/$agentId/evaluations" params={{ agentId }} className="agent-tab" aria-current={current === 'evaluations' ? 'page' : undefined}>
        Evaluations
      </Link>
    </nav>
  );
}
