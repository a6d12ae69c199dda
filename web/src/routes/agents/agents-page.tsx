import { dateTime } from '../../api/client.ts';
import { useAgents } from '../../api/queries.ts';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';

/** The account's agents. File agents are read-only here: their YAML in git is the source of truth. */
export function AgentsPage() {
  const agents = useAgents();
  return (
    <>
      <h1>Agents</h1>
      <section className="card" aria-label="Agents">
        {agents.isPending ? (
          <Loading what="agents" />
        ) : agents.error ? (
          <ErrorNote error={agents.error} />
        ) : agents.data.data.length === 0 ? (
          <p className="muted">No agents yet. Add a YAML file to the agents folder.</p>
        ) : (
          <div className="table-wrap">
            <table aria-label="Agents">
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Tools</th>
                  <th scope="col">Knowledge</th>
                  <th scope="col">Source</th>
                  <th scope="col">Version</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {agents.data.data.map((agent) => (
                  <tr key={agent.id}>
                    <td>
                      <code>{agent.id}</code>
                    </td>
                    <td>
                      {agent.name}
                      <div className="muted small">{agent.description}</div>
                    </td>
                    <td>{agent.model}</td>
                    <td>{agent.tools.join(', ') || '—'}</td>
                    <td>{agent.knowledge.join(', ') || '—'}</td>
                    <td>
                      file (read-only): <code>{agent.path}</code>
                    </td>
                    <td>
                      <code>{agent.version.slice(0, 8)}</code>
                    </td>
                    <td>{dateTime(agent.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
