import type { CallView, RunView } from '@contract/runs.ts';
import { usd } from '../../api/client.ts';
import { NO_KEY_CALLER } from '../../api/caller-names.ts';
import { DetailsList } from '../../components/ui/details-list.tsx';
import { usageEntryRows } from '../usage/usage-entry-rows.ts';
import { milliseconds, timeWithSeconds } from './run-format.ts';

export function RunSummary({ run }: { run: RunView }) {
  return (
    <DetailsList
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

/** A gateway call has no steps: its page is its usage row, as the Usage page's details show it. */
export function CallSummary({ call }: { call: CallView }) {
  return <DetailsList label="Call" rows={usageEntryRows(call)} />;
}
