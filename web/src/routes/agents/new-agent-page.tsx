import { useNavigate } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { useEditorOptions, useSaveAgent } from '../../api/queries.ts';
import { TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AgentEditor } from './agent-editor.tsx';
import { agentIdFromName } from './agent-id.ts';

const AGENT_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** A new console agent: the id follows the name until edited by hand, and a taken id is refused beside the field. */
export function NewAgentPage() {
  const options = useEditorOptions();
  const save = useSaveAgent();
  const navigate = useNavigate();
  const [id, setId] = useState('');
  const [idEdited, setIdEdited] = useState(false);
  const [takenError, setTakenError] = useState<string>();
  const idInput = useRef<HTMLInputElement>(null);
  if (options.isPending) return <Loading what="the editor" />;
  if (options.error) return <ErrorNote error={options.error} />;
  const idError = takenError ?? (id !== '' && !AGENT_ID.test(id) ? 'Letters, digits, "_" and "-" (at most 64).' : undefined);
  return (
    <>
      <h1>New agent</h1>
      <section className="card" aria-label="Editor">
        <AgentEditor
          initial={{ max_steps: 10 }}
          options={options.data}
          onNameChange={(name) => {
            if (idEdited) return;
            setId(agentIdFromName(name));
            setTakenError(undefined);
          }}
          idField={
            <TextField
              ref={idInput}
              label="Agent id"
              name="agent_id"
              required
              value={id}
              onChange={(event) => {
                setId(event.target.value);
                setIdEdited(true);
                setTakenError(undefined);
              }}
              error={idError}
              hint="Callers use it as the model name. Suggested from the name."
            />
          }
          onSave={async (definition, changeNote) => {
            if (!AGENT_ID.test(id)) throw new Error('Give the agent an id: letters, digits, "_" and "-".');
            try {
              await save.mutateAsync({ id, definition, changeNote, create: true });
            } catch (caught) {
              if (!(caught instanceof ApiError && caught.status === 409)) throw caught;
              setTakenError(caught.message);
              idInput.current?.focus();
              return;
            }
            await navigate({ to: '/agents/$agentId', params: { agentId: id } });
          }}
        />
      </section>
    </>
  );
}
