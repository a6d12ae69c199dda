import type { ConsoleAgent } from '@contract/agents.ts';
import { Link } from '@tanstack/react-router';
import { dateTime } from '../../api/client.ts';
import { useAgents, useSignedIn } from '../../api/queries.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ListView } from '../../components/ui/query-view.tsx';

/** The account's agents: file agents (read-only here, their YAML is the source of truth) and console agents. */
export function AgentsPage() {
  const agents = useAgents();
  const me = useSignedIn();
  return (
    <>
      <div className="section-header">
        <h1>Agents</h1>
        <div className="dialog-actions">
          {(me?.role === 'owner' || me?.role === 'admin') && (
            <Link to="/agents/new" className="button button-primary">
              New agent
            </Link>
          )}
        </div>
      </div>
      <section className="card" aria-label="Agents">
        <ListView query={agents} what="agents" empty='No agents yet. Create one with "New agent", or add a YAML file to the agents folder.'>
          {(list) => <AgentsTable agents={list} />}
        </ListView>
      </section>
    </>
  );
}

function AgentsTable({ agents }: { agents: ConsoleAgent[] }) {
  return (
    <DataTable label="Agents" columns={['Id', 'Name', 'Model', 'Tools', 'Knowledge', 'Source', 'Version', 'Updated']}>
      {agents.map((agent) => (
        <tr key={agent.id}>
          <td>
            <Link to="/agents/$agentId" params={{ agentId: agent.id }} aria-label={`Open agent ${agent.id}`}>
              <code>{agent.id}</code>
            </Link>
          </td>
          <td>
            {agent.name}
            <div className="muted small">{agent.description}</div>
          </td>
          <td>{agent.model}</td>
          <td>{agent.tools.join(', ') || '—'}</td>
          <td>{agent.knowledge.join(', ') || '—'}</td>
          <td>
            {agent.source === 'file' ? (
              <>
                file (read-only): <code>{agent.path}</code>
              </>
            ) : (
              'console'
            )}
          </td>
          <td>
            <code>{agent.source === 'file' ? agent.version.slice(0, 8) : agent.version}</code>
          </td>
          <td>{dateTime(agent.updated_at)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
