import { type FormEvent, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { TextField } from '../../components/ui/field.tsx';

/** Stages a version for a share of conversations: the dialog asks the share, Cancel leaves everything as it was. */
export function StageButton({ version, published, onStage }: { version: number; published: number; onStage(share: number): Promise<unknown> }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const share = Number(new FormData(event.currentTarget).get('share'));
    try {
      await onStage(share);
      setOpen(false);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <>
      <Button
        onClick={() => {
          setError(undefined);
          setOpen(true);
        }}
        aria-label={`Stage v${version}`}
      >
        Stage
      </Button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title={`Stage v${version}?`}
        description={`Version ${version} answers this share of conversations, each for its whole life; version ${published} answers the rest. Promote or abort it later.`}
      >
        <form onSubmit={submit} className="form-grid">
          <TextField label="Share of conversations (%)" name="share" type="number" min={1} max={99} step={1} required defaultValue="10" error={error} />
          <div className="dialog-actions">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button type="submit" variant="primary">
              Stage
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
