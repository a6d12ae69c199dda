import { useState } from 'react';
import { Button } from './button.tsx';
import { Dialog } from './dialog.tsx';

/** A destructive or hard-to-notice action behind a confirmation: the trigger opens it, "Confirm" runs it. */
export function ConfirmButton({
  label,
  accessibleName,
  title,
  description,
  confirmLabel = 'Confirm',
  variant = 'danger',
  onConfirm,
}: {
  label: string;
  accessibleName?: string;
  title: string;
  description: string;
  confirmLabel?: string;
  variant?: 'danger' | 'secondary';
  onConfirm(): Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <>
      <Button variant={variant} onClick={() => setOpen(true)} aria-label={accessibleName}>
        {label}
      </Button>
      <Dialog open={open} onOpenChange={setOpen} title={title} description={description}>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button
            variant="danger"
            onClick={() =>
              onConfirm().then(
                () => setOpen(false),
                (caught: Error) => setError(caught.message),
              )
            }
          >
            {confirmLabel}
          </Button>
        </div>
      </Dialog>
    </>
  );
}
