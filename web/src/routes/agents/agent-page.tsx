import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useAgent, useAgentYaml, useDeleteAgent, useEditorOptions, useRollbackAgent, useSaveAgent, useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AgentEditor } from './agent-editor.tsx';
import { Playground } from './playground.tsx';

/** One agent: its editor (console agents) or its file (read-only, duplicable), its versions, and the playground. */
export function AgentPage() {
  const { agentId } = useParams({ from: '/app/agents/$agentId' });
  const agent = useAgent(agentId);
  const options = useEditorOptions();
  const me = useSignedIn();
  const save = useSaveAgent();
  const rollback = useRollbackAgent(agentId);
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
      <p className="muted">
        {detail.source === 'file' ? (
          <>
            A file agent (read-only here): <code>{detail.path}</code>. Edit the file, or duplicate it into a console agent.
          </>
        ) : (
          <>Console agent, serving version {detail.latest_version}. Every save is a new version; the next request uses it.</>
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
            key={detail.version}
            initial={detail.definition}
            options={options.data}
            onSave={async (definition, changeNote) => {
              setNotice(undefined);
              const saved = await save.mutateAsync({ id: detail.id, definition, changeNote });
              setNotice(`Saved version ${saved.version}. The next request uses it.`);
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
        <section className="card" aria-label="Versions">
          <h2>Versions</h2>
          <DataTable label="Versions" columns={['Version', 'Change', 'By', 'When']} actions="Actions">
            {detail.versions.map((version) => (
              <tr key={version.version}>
                <td>
                  v{version.version}
                  {version.version === detail.latest_version && <strong> (serving)</strong>}
                </td>
                <td>{version.change_note ?? '—'}</td>
                <td>{version.created_by ?? '—'}</td>
                <td>{dateTime(version.created_at)}</td>
                <td>
                  {canEdit && version.version !== detail.latest_version && (
                    <ConfirmButton
                      label="Roll back"
                      variant="secondary"
                      accessibleName={`Roll back to v${version.version}`}
                      title={`Roll back to v${version.version}?`}
                      description={`Version ${version.version} serves the next request instead of version ${detail.latest_version}. Later versions stay in the history.`}
                      confirmLabel="Roll back"
                      onConfirm={async () => {
                        await rollback.mutateAsync(version.version);
                        setNotice(`Version ${version.version} serves again.`);
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        </section>
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
