import type { AgentDetail, EditorOptions } from '@contract/agent-editor.ts';
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
import { AgentFeedback } from './agent-feedback.tsx';
import { AgentTabs } from './agent-tabs.tsx';
import { Playground } from './playground.tsx';
import { usePlaygroundVersion } from './playground-version.ts';
import { VersionsPanel } from './versions-panel.tsx';
import './studio.css';

/** Puts the keyboard in the playground's message box, ready to type. */
const focusMessage = () => document.querySelector<HTMLTextAreaElement>('#playground textarea[name="message"]')?.focus();

/** One agent: its editor (console agents) or its file (read-only, duplicable) beside the playground, and its versions below. */
export function AgentPage() {
  const { agentId } = useParams({ from: '/app/agents/$agentId' });
  const agent = useAgent(agentId);
  const options = useEditorOptions();
  if (agent.isPending || options.isPending) return <Loading what="the agent" />;
  if (agent.error) return <ErrorNote error={agent.error} />;
  if (options.error) return <ErrorNote error={options.error} />;
  return <AgentStudio key={agent.data.id} detail={agent.data} options={options.data} />;
}

/** The studio: build on the left, try on the right (stacked on a phone), versions in a panel underneath. */
function AgentStudio({ detail, options }: { detail: AgentDetail; options: EditorOptions }) {
  const me = useSignedIn();
  const save = useSaveAgent();
  const saveDraft = useSaveDraft(detail.id);
  const remove = useDeleteAgent();
  const navigate = useNavigate();
  const [duplicating, setDuplicating] = useState(false);
  const [duplicateError, setDuplicateError] = useState<string>();
  // Outside the editor: a save remounts it (fresh defaults from the new version).
  const [saved, setSaved] = useState<{ text: string; version: number; draft: boolean }>();
  const [releaseNotice, setReleaseNotice] = useState<string>();
  const [versionsOpen, setVersionsOpen] = useState(false);
  const version = usePlaygroundVersion(detail);
  const canEdit = me?.role === 'owner' || me?.role === 'admin';
  const editable = detail.source === 'console' && canEdit;
  // Shown read-only (file agents, and console agents to members): as the YAML file, not as JSON.
  const yaml = useAgentYaml(detail.id, !editable);

  const duplicate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const id = String(new FormData(event.currentTarget).get('id') ?? '').trim();
    try {
      await save.mutateAsync({ id, definition: detail.definition, changeNote: `duplicated from ${detail.path ?? detail.id}`, create: true });
      setDuplicating(false);
      await navigate({ to: '/agents/$agentId', params: { agentId: id } });
    } catch (caught) {
      setDuplicateError((caught as Error).message);
    }
  };

  const tryVersion = (number: number) => {
    version.choose(number);
    focusMessage();
  };

  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{detail.id}</code>
        </h1>
        <div className="dialog-actions">
          {/* Beside the editor on a wide screen, below it on a phone: one keypress away either way. */}
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
      <p className="muted studio-intro">
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
      <div className="studio">
        <div className="studio-pane studio-build">
          {editable ? (
            <section className="card" aria-label="Editor">
              {saved && (
                <div className="notice studio-saved">
                  <p role="status">{saved.text}</p>
                  {saved.draft && (
                    <div className="dialog-actions">
                      <Button variant="primary" onClick={() => tryVersion(saved.version)}>
                        Try this draft
                      </Button>
                    </div>
                  )}
                </div>
              )}
              <AgentEditor
                key={detail.newest_version}
                initial={detail.definition}
                options={options}
                saveLabel="Save draft"
                onSave={async (definition, changeNote) => {
                  setSaved(undefined);
                  const result = await saveDraft.mutateAsync({ definition, changeNote });
                  setSaved(
                    result.published
                      ? { text: `Saved and published version ${result.version}.`, version: result.version, draft: false }
                      : { text: `Saved draft version ${result.version}. Try it in the playground, or publish it under Versions when it is ready.`, version: result.version, draft: true },
                  );
                  setVersionsOpen(true);
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
        </div>
        <div className="studio-pane studio-try">
          <Playground agentId={detail.id} version={version} />
        </div>
      </div>
      {detail.versions.length > 0 && (
        <VersionsPanel
          detail={detail}
          canEdit={canEdit}
          open={versionsOpen}
          onOpenChange={setVersionsOpen}
          notice={releaseNotice}
          onDone={(text) => {
            setSaved(undefined);
            setReleaseNotice(text);
          }}
        />
      )}
      <AgentFeedback agentId={detail.id} />
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
