import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useSaveDraft } from '../../api/agent-release-queries.ts';
import { useAgent, useAgentYaml, useDeleteAgent, useEditorOptions, useSaveAgent, useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AgentEditor } from './agent-editor.tsx';
import { AgentHistory } from './agent-history.tsx';
import { AgentTabs } from './agent-tabs.tsx';
import { AgentVersions } from './agent-versions.tsx';
import { Playground } from './playground.tsx';
import { VersionDiff } from './version-diff.tsx';

/** One agent: its editor (console agents) or its file (read-only, duplicable), its versions, and the playground. */
export function AgentPage() {
  const { agentId } = useParams({ from: '/app/agents/$agentId' });
  const agent = useAgent(agentId);
  const options = useEditorOptions();
  const me = useSignedIn();
  const save = useSaveAgent();
  const saveDraft = useSaveDraft(agentId);
  const remove = useDeleteAgent();
  const navigate = useNavigate();
  const [duplicating, setDuplicating] = useState(false);
  const [duplicateError, setDuplicateError] = useState<string>();
  // Outside the editor: a save remounts it (fresh defaults from the new version).
  const [notice, setNotice] = useState<string>();
  const canEdit = me?.role === 'owner' || me?.role === 'admin';
  // Shown read-only (file agents, and console agents to members): as the YAML file, not as JSON.
  const yaml = useAgentYaml(agentId, agent.data !== undefined && !(agent.data.source === 'console' && canEdit));

  if (agent.isPending || options.isPending) return <Loading what="the agent" />;
  if (agent.error) return <ErrorNote error={agent.error} />;
  if (options.error) return <ErrorNote error={options.error} />;
  const detail = agent.data;

  const duplicate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const id = String(new FormData(event.currentTarget).get('id') ?? '').trim();
    try {
      await save.mutateAsync({ id, definition: detail.definition, changeNote: `duplicated from ${detail.path ?? agentId}`, create: true });
      setDuplicating(false);
      await navigate({ to: '/agents/$agentId', params: { agentId: id } });
    } catch (caught) {
      setDuplicateError((caught as Error).message);
    }
  };

  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{detail.id}</code>
        </h1>
        <div className="dialog-actions">
          {/* The playground sits below the editor: one keypress away instead of a hundred Tabs. */}
          <a className="button button-primary" href="#playground">
            Try in the playground
          </a>
          <a className="button button-secondary" href={`/console/api/agents/${encodeURIComponent(detail.id)}/export`} download>
            Export YAML
          </a>
          {canEdit && detail.source === 'file' && <Button onClick={() => setDuplicating(true)}>Duplicate</Button>}
          {canEdit && detail.source === 'console' && (
            <ConfirmButton
              label="Delete"
              accessibleName={`Delete agent ${detail.id}`}
              title={`Delete ${detail.id}?`}
              description="Every version goes; calls to this agent then answer 404."
              confirmLabel="Delete"
              onConfirm={async () => {
                await remove.mutateAsync(detail.id);
                await navigate({ to: '/agents' });
              }}
            />
          )}
        </div>
      </div>
      <AgentTabs agentId={detail.id} current="agent" />
      <p className="muted">
        {detail.source === 'file' ? (
          <>
            A file agent (read-only here): <code>{detail.path}</code>. Edit the file, or duplicate it into a console agent.
          </>
        ) : (
          <>
            Console agent: callers get version {detail.published_version}
            {detail.staged && ` (version ${detail.staged.version} staged for ${detail.staged.share}% of conversations)`}. Every save is a draft version: callers get it once it is published, or pin it
            as <code>{`${detail.id}@N`}</code>.
          </>
        )}
      </p>
      {detail.source === 'console' && canEdit ? (
        <section className="card" aria-label="Editor">
          {notice && (
            <p className="notice" role="status">
              {notice}
            </p>
          )}
          <AgentEditor
            key={detail.newest_version}
            initial={detail.definition}
            options={options.data}
            saveLabel="Save draft"
            onSave={async (definition, changeNote) => {
              setNotice(undefined);
              const saved = await saveDraft.mutateAsync({ definition, changeNote });
              setNotice(saved.published ? `Saved and published version ${saved.version}.` : `Saved draft version ${saved.version}. Publish it below when it is ready.`);
            }}
          />
        </section>
      ) : (
        <section className="card" aria-label="Definition">
          <h2>Agent file</h2>
          {yaml.error ? (
            <ErrorNote error={yaml.error} />
          ) : (
            <pre className="definition" aria-label="Agent file (YAML)">
              {yaml.data ?? 'Loading…'}
            </pre>
          )}
        </section>
      )}
      {detail.versions.length > 0 && (
        <>
          <AgentVersions detail={detail} canEdit={canEdit} onDone={setNotice} />
          {detail.versions.length > 1 && <VersionDiff agentId={detail.id} versions={detail.versions} published={detail.published_version} />}
          <AgentHistory agentId={detail.id} />
        </>
      )}
      <Playground key={detail.id} agentId={detail.id} />
      <Dialog open={duplicating} onOpenChange={setDuplicating} title="Duplicate agent" description="An editable console copy under a new id.">
        <form onSubmit={duplicate} className="form-grid">
          <TextField label="New agent id" name="id" required pattern="[a-zA-Z0-9_\-]{1,64}" defaultValue={`${detail.id}-copy`} error={duplicateError} />
          <div className="dialog-actions">
            <Button onClick={() => setDuplicating(false)}>Cancel</Button>
            <Button type="submit" variant="primary">
              Duplicate
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
