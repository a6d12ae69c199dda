import type { CreditAccount } from '@contract/credits.ts';
import { type FormEvent, useState } from 'react';
import { ApiError, usd } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { useGrantCredit } from './credit-queries.ts';

type Draft = { accountId: string; amount: string; currency: string; note: string };
const AMOUNT = /^\d{1,12}(\.\d{1,6})?$/;

/** The grant's account, amount, currency and note, each with the error the server gave for it. */
function GrantFields({
  draft,
  onChange,
  accounts,
  currencies,
  amountError,
  fieldError,
}: {
  draft: Draft;
  onChange(draft: Draft): void;
  accounts: CreditAccount[];
  currencies: string[];
  amountError: string | undefined;
  fieldError(param: string): string | undefined;
}) {
  return (
    <>
      <div className="field-row">
        <SelectField label="Account" value={draft.accountId} onChange={(event) => onChange({ ...draft, accountId: event.target.value })} error={fieldError('account_id')}>
          {accounts.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.name}
              {entry.default ? ' (default)' : ''} — balance {usd(entry.balance_usd)}
            </option>
          ))}
        </SelectField>
        <TextField label="Amount" inputMode="decimal" value={draft.amount} onChange={(event) => onChange({ ...draft, amount: event.target.value })} error={amountError ?? fieldError('amount')} />
        <SelectField label="Currency" value={draft.currency} onChange={(event) => onChange({ ...draft, currency: event.target.value })} error={fieldError('currency')}>
          {currencies.map((currency) => (
            <option key={currency} value={currency}>
              {currency}
            </option>
          ))}
        </SelectField>
      </div>
      <TextField
        label="Note (optional)"
        value={draft.note}
        maxLength={500}
        hint="An invoice number or a reason, kept with the grant."
        onChange={(event) => onChange({ ...draft, note: event.target.value })}
        error={fieldError('note')}
      />
    </>
  );
}

/** The grant read back in words before it is made: credit cannot be taken back from the console. */
function ConfirmGrantDialog({
  open,
  onOpenChange,
  draft,
  accountName,
  pending,
  onConfirm,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  draft: Draft;
  accountName: string;
  pending: boolean;
  onConfirm(): void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Grant this credit?" description="Credit cannot be taken back from the console.">
      <p>
        Grant <strong>{`${draft.amount.trim()} ${draft.currency}`}</strong> to <strong>{accountName}</strong>
        {draft.note.trim() ? ` with the note “${draft.note.trim()}”` : ''}?
      </p>
      <div className="dialog-actions">
        <Button onClick={() => onOpenChange(false)}>Cancel</Button>
        <Button variant="primary" disabled={pending} onClick={onConfirm}>
          {pending ? 'Granting…' : 'Grant'}
        </Button>
      </div>
    </Dialog>
  );
}

/**
 * The operator's grant: an account, an amount, a currency and a note, asked about once
 * more before it is made (credit is money: a slip of a digit is expensive).
 */
export function GrantForm({ accounts, currencies, initialAccountId }: { accounts: CreditAccount[]; currencies: string[]; initialAccountId: string }) {
  const grant = useGrantCredit();
  const [draft, setDraft] = useState<Draft>({ accountId: initialAccountId, amount: '', currency: currencies.includes('USD') ? 'USD' : (currencies[0] ?? 'USD'), note: '' });
  const [amountError, setAmountError] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string>();
  const account = accounts.find((entry) => entry.id === draft.accountId);
  const failure = grant.error instanceof ApiError ? grant.error : undefined;
  const fieldError = (param: string) => (failure?.param === param ? failure.message : undefined);

  const review = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    grant.reset();
    const amount = draft.amount.trim();
    if (!AMOUNT.test(amount) || Number(amount) <= 0) {
      setAmountError('Enter an amount above 0, such as 10 or 9.99 (at most 6 decimals).');
      return;
    }
    setAmountError(undefined);
    setConfirming(true);
  };

  const confirm = () =>
    grant.mutate(
      { account_id: draft.accountId, amount: draft.amount.trim(), currency: draft.currency, ...(draft.note.trim() && { note: draft.note.trim() }) },
      {
        onSuccess: (result) => {
          setConfirming(false);
          setDone(
            `Granted ${result.data.amount.replace(/\.?0+$/, '')} ${result.data.currency} (${usd(result.data.usd)}) to ${result.account.name}. Its balance is now ${usd(result.account.balance_usd)}.`,
          );
          setDraft((previous) => ({ ...previous, amount: '', note: '' }));
        },
        onError: () => setConfirming(false),
      },
    );

  return (
    <section className="card" aria-labelledby="grant-heading">
      <h2 id="grant-heading">Grant credit</h2>
      <p className="muted small">As an operator of this server you may add credit to any account. Each grant is kept in the account's ledger with your email.</p>
      <form className="form-grid" onSubmit={review} noValidate>
        <GrantFields draft={draft} onChange={setDraft} accounts={accounts} currencies={currencies} amountError={amountError} fieldError={fieldError} />
        {failure && !failure.param && (
          <p className="field-error" role="alert">
            {failure.message}
          </p>
        )}
        <div>
          <Button type="submit" variant="primary">
            Grant credit
          </Button>
        </div>
      </form>
      {done && (
        <p className="notice" role="status">
          {done}
        </p>
      )}
      <ConfirmGrantDialog open={confirming} onOpenChange={setConfirming} draft={draft} accountName={account?.name ?? draft.accountId} pending={grant.isPending} onConfirm={confirm} />
    </section>
  );
}
