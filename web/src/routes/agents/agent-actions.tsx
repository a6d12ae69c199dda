import type { AgentDetail } from '@contract/agent-editor.ts';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useDeleteAgent, useSaveAgent } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { TextField } from '../../components/ui/field.tsx';

/** Duplicate a file agent into an editable console agent under a new id, then open the copy. */
function DuplicateButton({ detail }: { detail: AgentDetail }) {
  const save = useSaveAgent();
  const navigate = useNavigate();
  const [duplicating, setDuplicating] = useState(false);
  const [duplicateError, setDuplicateError] = useState<string>();

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

  return (
    <>
      <Button onClick={() => setDuplicating(true)}>Duplicate</Button>
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

/** Delete a console agent, every version of it, then go back to the list. */
function DeleteButton({ agentId }: { agentId: string }) {
  const remove = useDeleteAgent();
  const navigate = useNavigate();
  return (
    <ConfirmButton
      label="Delete"
      accessibleName={`Delete agent ${agentId}`}
      title={`Delete ${agentId}?`}
      description="Every version goes; calls to this agent then answer 404."
      confirmLabel="Delete"
      onConfirm={async () => {
        await remove.mutateAsync(agentId);
        await navigate({ to: '/agents' });
      }}
    />
  );
}

/** The agent page's heading and what can be done with the agent: try it, export it, and (owners and admins) duplicate or delete it. */
export function AgentHeader({ detail, canEdit }: { detail: AgentDetail; canEdit: boolean }) {
  return (
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
        {canEdit && detail.source === 'file' && <DuplicateButton detail={detail} />}
        {canEdit && detail.source === 'console' && <DeleteButton agentId={detail.id} />}
      </div>
    </div>
  );
}
