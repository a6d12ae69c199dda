import { Button } from '../../components/ui/button.tsx';
import { CopyButton } from '../../components/ui/copy-button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';

/** The plain key, once: it is not stored anywhere, so closing this is final. */
export function PlainKeyNotice({ plainKey, onClose }: { plainKey: string | undefined; onClose(): void }) {
  return (
    <Dialog open={plainKey !== undefined} onOpenChange={(open) => !open && onClose()} title="Your new key" description="Copy it now: this is the only time it is shown. Only its hash is stored.">
      <p className="warning" role="note">
        This is the only time the key is shown.
      </p>
      <code className="plain-key" aria-label="New key">
        {plainKey}
      </code>
      <div className="dialog-actions">
        <CopyButton value={plainKey ?? ''} label="Copy key" />
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      </div>
    </Dialog>
  );
}
