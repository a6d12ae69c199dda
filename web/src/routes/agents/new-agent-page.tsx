import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useEditorOptions, useSaveAgent } from '../../api/queries.ts';
import { TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AgentEditor } from './agent-editor.tsx';

const AGENT_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export function NewAgentPage() {
  const options = useEditorOptions();
  const save = useSaveAgent();
  const navigate = useNavigate();
  const [id, setId] = useState('');
  if (options.isPending) return <Loading what="the editor" />;
  if (options.error) return <ErrorNote error={options.error} />;
  const idError = id !== '' && !AGENT_ID.test(id) ? 'Letters, digits, "_" and "-" (at most 64).' : undefined;
  return (
    <>
      <h1>New agent</h1>
      <section className="card" aria-label="Editor">
        <AgentEditor
          initial={{ max_steps: 10 }}
          options={options.data}
          idField={<TextField label="Agent id" name="agent_id" required value={id} onChange={(event) => setId(event.target.value)} error={idError} hint="Callers use it as the model name." />}
          onSave={async (definition, changeNote) => {
            if (!AGENT_ID.test(id)) throw new Error('Give the agent an id: letters, digits, "_" and "-".');
            await save.mutateAsync({ id, definition, changeNote });
            await navigate({ to: '/agents/$agentId', params: { agentId: id } });
          }}
        />
      </section>
    </>
  );
}
