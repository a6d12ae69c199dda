import type { AgentDetail } from '@contract/agent-editor.ts';
import { useReleaseChange } from '../../api/agent-release-queries.ts';
import { dateTime } from '../../api/client.ts';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { StageButton } from './stage-button.tsx';

type Version = AgentDetail['versions'][number];

/** What a version is to callers: the published one, a staged release, a draft not yet released, or an earlier one. */
function statusOf(version: number, detail: AgentDetail): string {
  if (version === detail.published_version) return 'published';
  if (detail.staged && version === detail.staged.version) return `staged ${detail.staged.share}%`;
  return version > (detail.published_version ?? 0) ? 'draft' : 'earlier';
}

/**
 * The versions of a console agent with their release state and the buttons that change
 * it; each change asks first, says what callers will get, and reports back in `onDone`.
 */
export function AgentVersions({ detail, canEdit, onDone }: { detail: AgentDetail; canEdit: boolean; onDone(notice: string): void }) {
  const change = useReleaseChange(detail.id);
  const published = detail.published_version ?? 0;
  const staged = detail.staged;

  const actions = (version: Version) => {
    const number = version.version;
    if (number === published) return null;
    if (staged && number === staged.version) {
      return (
        <>
          <ConfirmButton
            label="Promote"
            variant="secondary"
            accessibleName={`Promote v${number}`}
            title={`Promote v${number}?`}
            description={`Version ${number} answers every conversation, instead of ${staged.share}% of them.`}
            confirmLabel="Promote"
            onConfirm={async () => {
              await change.mutateAsync({ action: 'promote' });
              onDone(`Version ${number} is promoted: every conversation gets it.`);
            }}
          />
          <ConfirmButton
            label="Abort"
            accessibleName={`Abort v${number}`}
            title={`Abort the release of v${number}?`}
            description={`Version ${published} answers every conversation again.`}
            confirmLabel="Abort"
            onConfirm={async () => {
              await change.mutateAsync({ action: 'abort' });
              onDone(`The release of version ${number} is aborted.`);
            }}
          />
        </>
      );
    }
    const older = number < published;
    const action = older ? 'rollback' : 'publish';
    const verb = older ? 'Roll back' : 'Publish';
    return (
      <>
        <ConfirmButton
          label={verb}
          variant="secondary"
          accessibleName={older ? `Roll back to v${number}` : `Publish v${number}`}
          title={older ? `Roll back to v${number}?` : `Publish v${number}?`}
          description={`Version ${number} answers the next request instead of version ${published}${staged ? ', and the staged release ends' : ''}. Every version stays in the history.`}
          confirmLabel={verb}
          onConfirm={async () => {
            await change.mutateAsync({ action, version: number });
            onDone(older ? `Version ${number} serves again.` : `Version ${number} is published.`);
          }}
        />
        {!older && (
          <StageButton
            version={number}
            published={published}
            onStage={async (share) => {
              await change.mutateAsync({ action: 'stage', version: number, share });
              onDone(`Version ${number} answers ${share}% of conversations.`);
            }}
          />
        )}
      </>
    );
  };

  return (
    <section className="card" aria-label="Versions">
      <h2>Versions</h2>
      <DataTable label="Versions" columns={['Version', 'Status', 'Change', 'By', 'When']} actions="Actions">
        {detail.versions.map((version) => (
          <tr key={version.version}>
            <td>v{version.version}</td>
            <td>{statusOf(version.version, detail)}</td>
            <td>{version.change_note ?? '—'}</td>
            <td>{version.created_by ?? '—'}</td>
            <td>{dateTime(version.created_at)}</td>
            <td>
              <div className="dialog-actions">{canEdit && actions(version)}</div>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
