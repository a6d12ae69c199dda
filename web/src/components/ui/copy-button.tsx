import { useState } from 'react';
import { Button } from './button.tsx';

/** Copies a value to the clipboard and says so (the label changes, and a polite live region announces it). */
export function CopyButton({ value, label = 'Copy', onCopied }: { value: string; label?: string; onCopied?: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <Button
        onClick={() =>
          navigator.clipboard.writeText(value).then(
            () => {
              setCopied(true);
              onCopied?.();
            },
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : label}
      </Button>
      <span className="visually-hidden" aria-live="polite">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </>
  );
}
