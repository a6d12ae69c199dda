import { Button } from '../../components/ui/button.tsx';
import { CopyButton } from '../../components/ui/copy-button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { ShownOnce } from '../../components/ui/shown-once.tsx';
import { SnippetTabs } from '../overview/snippet-tabs.tsx';

/** The plain key, once: it is not stored anywhere, so closing this is final. A model key comes with first calls that use it, ready to copy. */
export function PlainKeyNotice({ plainKey, onClose, withSnippets = false }: { plainKey: string | undefined; onClose(): void; withSnippets?: boolean }) {
  return (
    <Dialog open={plainKey !== undefined} onOpenChange={(open) => !open && onClose()} title="Your new key" description="Copy it now: this is the only time it is shown. Only its hash is stored.">
      <p className="warning" role="note">
        This is the only time the key is shown.
      </p>
      <ShownOnce label="New key" value={plainKey} />
      {withSnippets && plainKey && (
        <section aria-labelledby="first-call-heading">
          <h3 id="first-call-heading" className="small">
            Make a first call
          </h3>
          <SnippetTabs apiKey={plainKey} />
        </section>
      )}
      <div className="dialog-actions">
        <CopyButton value={plainKey ?? ''} label="Copy key" />
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      </div>
    </Dialog>
  );
}
