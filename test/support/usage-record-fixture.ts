import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../../src/billing/usage-record.ts';

/**
 * A successful chat call's usage row, for tests that hand settlements to the billing
 * pipeline themselves; `overrides` set what a test is about (its id, text, cost…).
 */
export function usageRecordFixture(owner: { accountId: string; keyId: string | null }, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: `gen-${randomUUID()}`,
    accountId: owner.accountId,
    keyId: owner.keyId,
    requestId: 'req_test',
    endpoint: 'chat.completions',
    requestedModel: 'openai/test-echo',
    model: 'openai/test-echo',
    provider: 'openai',
    upstreamModel: 'test-echo',
    status: 'success',
    httpStatus: 200,
    errorCode: null,
    inputTokens: 1,
    outputTokens: 1,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    units: null,
    costMicros: 100,
    latencyMs: 1,
    attempts: 1,
    streamed: false,
    agentId: null,
    agentRunId: null,
    createdAt: new Date(),
    ...overrides,
  };
}
