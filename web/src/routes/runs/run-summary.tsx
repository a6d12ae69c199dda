import type { CallView, RunView } from '@contract/runs.ts';
import { usd } from '../../api/client.ts';
import { NO_KEY_CALLER } from '../../api/caller-names.ts';
import { milliseconds, timeWithSeconds } from './run-format.ts';

function Details({ label, rows }: { label: string; rows: Array<[string, string]> }) {
  return (
    <dl className="details" aria-label={label}>
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function RunSummary({ run }: { run: RunView }) {
  return (
    <Details
      label="Run summary"
      rows={[
        ['Run id', run.run_id],
        ['Response id', run.response_id ?? '—'],
        ['Agent', run.agent_id ?? '—'],
        ['Agent version', run.agent_version ?? '—'],
        ['Key', run.key_name ?? (run.key_id ? run.key_id : NO_KEY_CALLER)],
        ['Started', timeWithSeconds(run.started_at)],
        ['Latency', milliseconds(run.latency_ms)],
        ['Tokens', `${run.input_tokens} in / ${run.output_tokens} out`],
        ['Cost of the steps', usd(run.cost_usd)],
        ['Billed', `${usd(run.usage_cost_usd)} in ${run.usage_rows} usage ${run.usage_rows === 1 ? 'row' : 'rows'}`],
      ]}
    />
  );
}

/** A gateway call has no steps: its page is its usage row. */
export function CallSummary({ call }: { call: CallView }) {
  return (
    <Details
      label="Call"
      rows={[
        ['Id', call.id],
        ['Time', timeWithSeconds(call.created_at)],
        ['Key', call.key_name ?? NO_KEY_CALLER],
        ['Endpoint', call.endpoint],
        ['Requested model', call.requested_model ?? '—'],
        ['Model', call.model ?? '—'],
        ['Provider', call.provider ?? '—'],
        ['Status', `${call.status}${call.http_status ? ` (${call.http_status})` : ''}${call.error_code ? ` ${call.error_code}` : ''}`],
        ['Input tokens', String(call.input_tokens)],
        ['Output tokens', String(call.output_tokens)],
        ['Cached input tokens', String(call.cached_input_tokens)],
        ['Reasoning tokens', String(call.reasoning_tokens)],
        ['Cost', usd(call.cost_usd)],
        ['Latency', milliseconds(call.latency_ms)],
        ['Attempts', String(call.attempts)],
        ['Streamed', call.streamed ? 'yes' : 'no'],
      ]}
    />
  );
}
