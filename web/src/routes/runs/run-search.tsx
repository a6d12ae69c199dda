import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { TextField } from '../../components/ui/field.tsx';

/** Opens a run or call by any id it is known by: run id, response id (resp_…) or usage row id. */
export function RunSearch({ initial = '' }: { initial?: string }) {
  const navigate = useNavigate();
  const [id, setId] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = id.trim();
    if (wanted) void navigate({ to: '/runs/$runId', params: { runId: wanted } });
  };
  return (
    <search className="card" aria-label="Find a run">
      <form onSubmit={submit}>
        <TextField label="Run, response or call id" value={id} onChange={(event) => setId(event.target.value)} placeholder="run_…, resp_… or gen-…" />
        <Button type="submit" variant="primary">
          Open
        </Button>
      </form>
    </search>
  );
}
