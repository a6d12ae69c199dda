import type { UsageEntry } from '@contract/usage.ts';
import { usd } from '../../api/client.ts';
import { NO_KEY_CALLER } from '../../api/caller-names.ts';
import { timeWithSeconds } from './local-dates.ts';
import { statusText } from './status-text.ts';

/** Every field of one call, named for people: the Usage page's details and a gateway call's run page. */
export function usageEntryRows(entry: UsageEntry): Array<[string, string]> {
  return [
    ['Id', entry.id],
    ['Time', timeWithSeconds(entry.created_at)],
    ['Key', entry.key_name ?? NO_KEY_CALLER],
    ['Endpoint', entry.endpoint],
    ['Requested model', entry.requested_model ?? '—'],
    ['Model', entry.model ?? '—'],
    ['Provider', entry.provider ?? '—'],
    ['Status', `${statusText(entry)}${entry.http_status ? ` ${entry.http_status}` : ''}${entry.error_code ? ` ${entry.error_code}` : ''}`],
    ['Input tokens', String(entry.input_tokens)],
    ['Output tokens', String(entry.output_tokens)],
    ['Cached input tokens', String(entry.cached_input_tokens)],
    ['Cache write tokens', String(entry.cache_write_tokens)],
    ['Reasoning tokens', String(entry.reasoning_tokens)],
    ['Cost', usd(entry.cost_usd)],
    ['Latency', entry.latency_ms === null ? '—' : `${entry.latency_ms} ms`],
    ['Attempts', String(entry.attempts)],
    ['Streamed', entry.streamed ? 'yes' : 'no'],
    ['Response cache', entry.cache_hit ? 'hit' : '—'],
    ['Agent', entry.agent_id === null ? '—' : `${entry.agent_id}${entry.agent_version ? ` (${entry.agent_version})` : ''}`],
    ['Run', entry.agent_run_id ?? '—'],
    ['Request id', entry.request_id],
  ];
}
