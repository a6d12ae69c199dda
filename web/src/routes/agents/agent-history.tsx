import type { AuditEntry } from '@contract/agent-editor.ts';
import { useAgentAudit } from '../../api/agent-release-queries.ts';
import { dateTime } from '../../api/client.ts';
import { withContentKeys } from '../../components/content-keys.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';

/** One line of the audit trail in words. */
function describe(entry: AuditEntry): string {
  const version = `v${entry.version}`;
  switch (entry.action) {
    case 'created':
      return `created the agent (${version})`;
    case 'saved':
      return `saved draft ${version}`;
    case 'published':
      return entry.previous_version === null ? `published ${version}` : `published ${version} (was v${entry.previous_version})`;
    case 'rolled_back':
      return `rolled back to ${version} (was v${entry.previous_version})`;
    case 'staged':
      return `staged ${version} for ${entry.share}% of conversations`;
    case 'promoted':
      return `promoted ${version} to every conversation`;
    case 'aborted':
      return `aborted the release of ${version}`;
    case 'deleted':
      return 'deleted the agent';
  }
}

/** Who changed, published, staged, promoted or rolled back what, and when: newest first. */
export function AgentHistory({ agentId }: { agentId: string }) {
  const audit = useAgentAudit(agentId);
  return (
    <section className="card" aria-label="History">
      <h2>History</h2>
      {audit.isPending && <Loading what="the history" />}
      {audit.error && <ErrorNote error={audit.error} />}
      {audit.data && (
        <DataTable label="History" columns={['When', 'Who', 'What']}>
          {withContentKeys(audit.data.data, (entry) => `${entry.created_at} ${entry.action} ${entry.version}`).map(({ key, item: entry }) => (
            <tr key={key}>
              <td>{dateTime(entry.created_at)}</td>
              <td>{entry.actor ?? '—'}</td>
              <td>{describe(entry)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
