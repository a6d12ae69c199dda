import type { AgentDetail, EditorOptions } from '@contract/agent-editor.ts';
import { useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { useSaveDraft } from '../../api/agent-release-queries.ts';
import { useAgent, useAgentYaml, useEditorOptions, useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AgentHeader } from './agent-actions.tsx';
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

type Saved = { text: string; version: number; draft: boolean };

/** What kind of agent this is and how its versions reach callers. */
function StudioIntro({ detail }: { detail: AgentDetail }) {
  return (
    <p className="muted studio-intro">
      {detail.source === 'file' ? (
        <>
          A file agent (read-only here): <code>{detail.path}</code>. Edit the file, or duplicate it into a console agent.
        </>
      ) : (
        <>
          Console agent: callers get version {detail.published_version}
          {detail.staged && ` (version ${detail.staged.version} staged for ${detail.staged.share}% of conversations)`}. Every save is a draft version: callers get it once it is published, or pin it as{' '}
          <code>{`${detail.id}@N`}</code>.
        </>
      )}
    </p>
  );
}

/** The agent shown read-only (file agents, and console agents to members): as its YAML file, not as JSON. */
function AgentFile({ agentId }: { agentId: string }) {
  const yaml = useAgentYaml(agentId, true);
  return (
    <section className="card" aria-label="Definition">
      <h2>Agent file</h2>
      {yaml.error ? (
        <ErrorNote error={yaml.error} />
      ) : (
        <figure className="unframed" aria-label="Agent file (YAML)">
          <pre className="definition">{yaml.data ?? 'Loading…'}</pre>
        </figure>
      )}
    </section>
  );
}

/** The editor of a console agent: each save is a new version, announced with a way to try a draft at once. */
function EditorCard({
  detail,
  options,
  saved,
  onSaved,
  onTry,
}: {
  detail: AgentDetail;
  options: EditorOptions;
  saved: Saved | undefined;
  onSaved(saved: Saved | undefined): void;
  onTry(version: number): void;
}) {
  const saveDraft = useSaveDraft(detail.id);
  return (
    <section className="card" aria-label="Editor">
      {saved && (
        <div className="notice studio-saved">
          <p role="status">{saved.text}</p>
          {saved.draft && (
            <div className="dialog-actions">
              <Button variant="primary" onClick={() => onTry(saved.version)}>
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
          onSaved(undefined);
          const result = await saveDraft.mutateAsync({ definition, changeNote });
          onSaved(
            result.published
              ? { text: `Saved and published version ${result.version}.`, version: result.version, draft: false }
              : { text: `Saved draft version ${result.version}. Try it in the playground, or publish it under Versions when it is ready.`, version: result.version, draft: true },
          );
        }}
      />
    </section>
  );
}

/** The studio: build on the left, try on the right (stacked on a phone), versions in a panel underneath. */
function AgentStudio({ detail, options }: { detail: AgentDetail; options: EditorOptions }) {
  const me = useSignedIn();
  // Outside the editor: a save remounts it (fresh defaults from the new version).
  const [saved, setSaved] = useState<Saved>();
  const [releaseNotice, setReleaseNotice] = useState<string>();
  const [versionsOpen, setVersionsOpen] = useState(false);
  const version = usePlaygroundVersion(detail);
  const canEdit = me?.role === 'owner' || me?.role === 'admin';
  const editable = detail.source === 'console' && canEdit;

  const tryVersion = (number: number) => {
    version.choose(number);
    focusMessage();
  };
  const onSaved = (next: Saved | undefined) => {
    setSaved(next);
    if (next) setVersionsOpen(true);
  };

  return (
    <>
      <AgentHeader detail={detail} canEdit={canEdit} />
      <AgentTabs agentId={detail.id} current="agent" />
      <StudioIntro detail={detail} />
      <div className="studio">
        <div className="studio-pane studio-build">
          {editable ? <EditorCard detail={detail} options={options} saved={saved} onSaved={onSaved} onTry={tryVersion} /> : <AgentFile agentId={detail.id} />}
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
    </>
  );
}
