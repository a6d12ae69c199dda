import { useState } from 'react';
import { Button } from './button.tsx';

/** Copies a value to the clipboard and says so (the label changes, and a polite live region announces it). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <Button
        onClick={() =>
          navigator.clipboard.writeText(value).then(
            () => setCopied(true),
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
