import type { AgentDetail } from '@contract/agent-editor.ts';
import { useReleaseChange } from '../../api/agent-release-queries.ts';
import { dateTime } from '../../api/client.ts';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { StageButton } from './stage-button.tsx';

/** What a version is to callers: the published one, a staged release, a draft not yet released, or an earlier one. */
function statusOf(version: number, detail: AgentDetail): string {
  if (version === detail.published_version) return 'published';
  if (detail.staged && version === detail.staged.version) return `staged ${detail.staged.share}%`;
  return version > (detail.published_version ?? 0) ? 'draft' : 'earlier';
}

type Release = Parameters<ReturnType<typeof useReleaseChange>['mutateAsync']>[0];
/** Makes a release change, then says in words what callers now get. */
type Apply = (release: Release, notice: string) => Promise<void>;

/** The staged version: promote it to every conversation, or abort its release. */
function StagedActions({ number, share, published, apply }: { number: number; share: number; published: number; apply: Apply }) {
  return (
    <>
      <ConfirmButton
        label="Promote"
        variant="secondary"
        accessibleName={`Promote v${number}`}
        title={`Promote v${number}?`}
        description={`Version ${number} answers every conversation, instead of ${share}% of them.`}
        confirmLabel="Promote"
        onConfirm={() => apply({ action: 'promote' }, `Version ${number} is promoted: every conversation gets it.`)}
      />
      <ConfirmButton
        label="Abort"
        accessibleName={`Abort v${number}`}
        title={`Abort the release of v${number}?`}
        description={`Version ${published} answers every conversation again.`}
        confirmLabel="Abort"
        onConfirm={() => apply({ action: 'abort' }, `The release of version ${number} is aborted.`)}
      />
    </>
  );
}

/** Any other version: publish a newer one (or stage it for a share of conversations), roll back to an older one. */
function ReleaseActions({ number, published, staged, apply }: { number: number; published: number; staged: boolean; apply: Apply }) {
  const older = number < published;
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
        onConfirm={() => apply({ action: older ? 'rollback' : 'publish', version: number }, older ? `Version ${number} serves again.` : `Version ${number} is published.`)}
      />
      {!older && (
        <StageButton version={number} published={published} onStage={(share) => apply({ action: 'stage', version: number, share }, `Version ${number} answers ${share}% of conversations.`)} />
      )}
    </>
  );
}

/**
 * The versions of a console agent with their release state and the buttons that change
 * it; each change asks first, says what callers will get, and reports back in `onDone`.
 */
export function AgentVersions({ detail, canEdit, onDone }: { detail: AgentDetail; canEdit: boolean; onDone(notice: string): void }) {
  const change = useReleaseChange(detail.id);
  const published = detail.published_version ?? 0;
  const staged = detail.staged;
  const apply: Apply = async (release, notice) => {
    await change.mutateAsync(release);
    onDone(notice);
  };

  const actions = (number: number) => {
    if (number === published) return null;
    if (staged && number === staged.version) return <StagedActions number={number} share={staged.share} published={published} apply={apply} />;
    return <ReleaseActions number={number} published={published} staged={staged !== null} apply={apply} />;
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
              <div className="dialog-actions">{canEdit && actions(version.version)}</div>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
