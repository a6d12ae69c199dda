import type { UsageEntry } from '@contract/usage.ts';
import { DetailsList } from '../../components/ui/details-list.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { usageEntryRows } from './usage-entry-rows.ts';

/** Every field of one call, in a dialog. */
export function UsageDetail({ entry, onClose }: { entry: UsageEntry | undefined; onClose(): void }) {
  return (
    <Dialog open={entry !== undefined} onOpenChange={(open) => !open && onClose()} title="Call details">
      <DetailsList rows={entry ? usageEntryRows(entry) : []} />
    </Dialog>
  );
}
