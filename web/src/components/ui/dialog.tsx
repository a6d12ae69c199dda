import * as RadixDialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';

/** A modal dialog (Radix: focus trapped, Escape closes, title and description announced). */
export function Dialog({ open, onOpenChange, title, description, children }: { open: boolean; onOpenChange(open: boolean): void; title: string; description?: string; children: ReactNode }) {
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content className="dialog-content" aria-describedby={description ? undefined : undefined}>
          <RadixDialog.Title className="dialog-title">{title}</RadixDialog.Title>
          <RadixDialog.Description className={description ? 'dialog-description' : 'visually-hidden'}>{description ?? title}</RadixDialog.Description>
          {children}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
