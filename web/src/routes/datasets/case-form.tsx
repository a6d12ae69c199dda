import type { AddCaseInput, CaseView } from '@contract/datasets.ts';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField, TextField } from '../../components/ui/field.tsx';

/** A case's input as the form shows it: the message itself, or a conversation as JSON. */
export const inputText = (input: CaseView['input']): string => (typeof input === 'string' ? input : JSON.stringify(input, null, 2));

/** One line for a table cell: the message, or the conversation's last user message and how many came before it. */
export function inputSummary(input: CaseView['input']): string {
  if (typeof input === 'string') return input;
  const lastUser = input.findLast((message) => message.role === 'user');
  const earlier = input.length - 1;
  return `${lastUser?.content ?? ''}${earlier > 0 ? ` (+${earlier} earlier message${earlier === 1 ? '' : 's'})` : ''}`;
}

type Problems = Partial<Record<'input' | 'expect', string>>;

/** The form's text as a case: a JSON array input is a conversation, anything else one message; the server checks the rest. */
function readCase(form: FormData): { value?: AddCaseInput; problems: Problems } {
  const inputRaw = String(form.get('input') ?? '').trim();
  const expectRaw = String(form.get('expect') ?? '').trim();
  const problems: Problems = {};
  let input: AddCaseInput['input'] = inputRaw;
  if (inputRaw.startsWith('[')) {
    try {
      input = JSON.parse(inputRaw) as AddCaseInput['input'];
    } catch {
      problems.input = 'A conversation is a JSON array of {"role", "content"} messages; this one is not valid JSON.';
    }
  }
  let expect: AddCaseInput['expect'] = null;
  if (expectRaw !== '') {
    try {
      expect = JSON.parse(expectRaw) as AddCaseInput['expect'];
    } catch {
      problems.expect = 'Expectations are a JSON object, such as {"must_contain": ["refund"]}; this is not valid JSON.';
    }
  }
  if (problems.input || problems.expect) return { problems };
  const reference = String(form.get('reference') ?? '');
  const tags = String(form.get('tags') ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  return { value: { input, reference: reference === '' ? null : reference, expect, tags }, problems };
}

/** Add or edit one case; a refusal from the server is shown beside the field it names. */
export function CaseForm({ initial, submitLabel, onSubmit }: { initial?: CaseView; submitLabel: string; onSubmit(value: AddCaseInput): Promise<unknown> }) {
  const [problems, setProblems] = useState<Problems & { other?: string }>({});
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const read = readCase(new FormData(form));
    setProblems(read.problems);
    if (!read.value) return;
    try {
      await onSubmit(read.value);
      if (!initial) form.reset();
    } catch (caught) {
      const error = caught as Error & { param?: string | null };
      const field = error.param?.split('.')[0];
      setProblems(field === 'input' || field === 'expect' ? { [field]: error.message } : { other: error.message });
    }
  };
  return (
    <form onSubmit={submit} className="form-grid" aria-label={initial ? 'Edit case' : 'New case'}>
      <TextAreaField label="Input" name="input" required rows={3} defaultValue={initial ? inputText(initial.input) : ''} error={problems.input} />
      <TextAreaField label="Reference answer" name="reference" rows={3} defaultValue={initial?.reference ?? ''} />
      <TextField label="Tags" name="tags" hint="Comma-separated, such as refunds, billing" defaultValue={initial?.tags.join(', ') ?? ''} />
      <TextAreaField label="Expectations (JSON)" name="expect" rows={2} defaultValue={initial?.expect ? JSON.stringify(initial.expect) : ''} error={problems.expect} />
      {problems.other && (
        <p className="field-error" role="alert">
          {problems.other}
        </p>
      )}
      <div>
        <Button type="submit" variant="primary">
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
