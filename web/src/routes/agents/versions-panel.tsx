import type { AgentDetail } from '@contract/agent-editor.ts';
import { AgentHistory } from './agent-history.tsx';
import { AgentVersions } from './agent-versions.tsx';
import { VersionDiff } from './version-diff.tsx';

/**
 * A console agent's versions, the diff between two of them and the history of releases,
 * behind one disclosure under the studio: the first screen is the editor and the chat.
 */
export function VersionsPanel({
  detail,
  canEdit,
  open,
  onOpenChange,
  notice,
  onDone,
}: {
  detail: AgentDetail;
  canEdit: boolean;
  open: boolean;
  onOpenChange(open: boolean): void;
  notice: string | undefined;
  onDone(notice: string): void;
}) {
  const published = detail.published_version;
  const drafts = detail.versions.filter((version) => version.version > (published ?? 0)).length;
  return (
    <div className="card versions-panel">
      <div className="section-header">
        <h2>
          <button type="button" className="disclosure" aria-expanded={open} aria-controls="versions-panel-body" onClick={() => onOpenChange(!open)}>
            <span aria-hidden="true" className="disclosure-mark">
              {open ? '▾' : '▸'}
            </span>{' '}
            Versions
          </button>
        </h2>
        <p className="muted small versions-summary">
          {detail.versions.length} saved{published !== null && ` · v${published} published`}
          {detail.staged && ` · v${detail.staged.version} staged for ${detail.staged.share}%`}
          {drafts > 0 && ` · ${drafts} draft${drafts === 1 ? '' : 's'}`}
        </p>
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <div id="versions-panel-body" className="versions-panel-body" hidden={!open}>
        {open && (
          <>
            <AgentVersions detail={detail} canEdit={canEdit} onDone={onDone} />
            {detail.versions.length > 1 && <VersionDiff agentId={detail.id} versions={detail.versions} published={published} />}
            <AgentHistory agentId={detail.id} />
          </>
        )}
      </div>
    </div>
  );
}
