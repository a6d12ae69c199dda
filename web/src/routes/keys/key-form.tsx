import type { ConsoleKey, ModelKeyInput } from '@contract/keys.ts';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { useModels } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField, TextField } from '../../components/ui/field.tsx';
import { MultiSelect } from '../../components/ui/multi-select.tsx';
import { Loading } from '../../components/ui/states.tsx';

/** Blank means "no limit" (and clears it on edit, exactly as PATCH /v1/keys does with null). */
const amountOrNull = (value: FormDataEntryValue | null): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/**
 * The model key form, for create and edit. The server validates (same schema as
 * /v1/keys); its error lands beside the field it names.
 */
export function KeyForm({ initial, submitLabel, onSubmit }: { initial?: ConsoleKey; submitLabel: string; onSubmit(input: ModelKeyInput): Promise<unknown> }) {
  const models = useModels();
  const [error, setError] = useState<{ param: string | null; message: string }>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const expiry = amountOrNull(form.get('expires_at'));
    const rpm = amountOrNull(form.get('rate_limit_rpm'));
    const cacheTtl = amountOrNull(form.get('cache_ttl_seconds'));
    const allowed = form.getAll('allowed_models').map(String);
    const input: ModelKeyInput = {
      name: String(form.get('name') ?? ''),
      description: amountOrNull(form.get('description')),
      daily_limit_usd: amountOrNull(form.get('daily_limit_usd')),
      monthly_limit_usd: amountOrNull(form.get('monthly_limit_usd')),
      total_limit_usd: amountOrNull(form.get('total_limit_usd')),
      expires_at: expiry ? new Date(expiry).toISOString() : null,
      allowed_models: allowed.length > 0 ? allowed : null,
      rate_limit_rpm: rpm ? Number(rpm) : null,
      cache_ttl_seconds: cacheTtl ? Number(cacheTtl) : null,
    };
    setError(undefined);
    try {
      await onSubmit(input);
    } catch (caught) {
      setError({ param: caught instanceof ApiError ? caught.param : null, message: (caught as Error).message });
    }
  };
  const errorFor = (param: string) => (error?.param === param ? error.message : undefined);

  return (
    <form onSubmit={submit} className="form-grid">
      <TextField label="Name" name="name" required defaultValue={initial?.name} error={errorFor('name')} />
      <TextAreaField label="Description" name="description" rows={2} defaultValue={initial?.description ?? ''} error={errorFor('description')} />
      <div className="field-row">
        <TextField label="Daily limit (USD)" name="daily_limit_usd" inputMode="decimal" defaultValue={initial?.daily_limit_usd ?? ''} error={errorFor('daily_limit_usd')} />
        <TextField label="Monthly limit (USD)" name="monthly_limit_usd" inputMode="decimal" defaultValue={initial?.monthly_limit_usd ?? ''} error={errorFor('monthly_limit_usd')} />
        <TextField label="Total limit (USD)" name="total_limit_usd" inputMode="decimal" defaultValue={initial?.total_limit_usd ?? ''} error={errorFor('total_limit_usd')} />
      </div>
      <div className="field-row">
        <TextField label="Expiry" name="expires_at" type="datetime-local" defaultValue={initial?.expires_at ? initial.expires_at.slice(0, 16) : ''} error={errorFor('expires_at')} />
        <TextField label="Requests per minute" name="rate_limit_rpm" type="number" min={1} defaultValue={initial?.rate_limit_rpm ?? ''} error={errorFor('rate_limit_rpm')} />
        <TextField label="Response cache (seconds)" name="cache_ttl_seconds" type="number" min={1} defaultValue={initial?.cache_ttl_seconds ?? ''} error={errorFor('cache_ttl_seconds')} />
      </div>
      {models.data ? (
        <MultiSelect
          label="Allowed models"
          hint="None chosen: every model of the plan."
          name="allowed_models"
          options={models.data.data.map((model) => ({ value: model.id }))}
          defaultSelected={initial?.allowed_models ?? []}
          error={errorFor('allowed_models')}
        />
      ) : (
        <Loading what="the models" />
      )}
      {error &&
        !['name', 'description', 'daily_limit_usd', 'monthly_limit_usd', 'total_limit_usd', 'expires_at', 'rate_limit_rpm', 'cache_ttl_seconds', 'allowed_models'].includes(error.param ?? '') && (
          <p className="field-error" role="alert">
            {error.message}
          </p>
        )}
      <div className="dialog-actions">
        <Button type="submit" variant="primary">
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
