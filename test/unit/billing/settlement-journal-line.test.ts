import { describe, expect, it } from 'vitest';
import { decodeSettlement, encodeSettlement, type JournaledSettlement } from '../../../src/billing/settlement-journal-line.ts';
import type { UsageRecord } from '../../../src/billing/usage-record.ts';
import { seededRandom } from '../../support/generated-requests.ts';

describe('settlement journal lines', () => {
  it('are the JSON array of the settlement and its usage row, and come back as they were, over generated settlements', () => {
    const rng = seededRandom(20);
    const text = () => rng.pick(['gen-1', '', 'openai/gpt-4o', 'say "hi"\\', 'é ☕ 😀', '\u0001\n\t', '\ud800', '\u2028', 'x'.repeat(300)]);
    const maybe = <T>(value: () => T): T | null => (rng.next() < 0.3 ? null : value());
    const number = () => rng.pick([0, 7, -3, 1.5, 1e21, 123_456_789_012]);
    for (let index = 0; index < 3_000; index += 1) {
      const usage: UsageRecord = {
        id: text(),
        accountId: text(),
        keyId: maybe(text),
        requestId: text(),
        endpoint: text(),
        requestedModel: maybe(text),
        model: maybe(text),
        provider: maybe(text),
        upstreamModel: maybe(text),
        status: rng.pick(['success', 'upstream_error', 'client_closed'] as const),
        httpStatus: maybe(() => rng.pick([200, 499, 502])),
        errorCode: maybe(text),
        inputTokens: number(),
        outputTokens: number(),
        cachedInputTokens: number(),
        reasoningTokens: number(),
        units: maybe(() => rng.pick<Record<string, number>>([{ images: 2 }, { seconds: 1.5, characters: 10 }, {}])),
        costMicros: number(),
        latencyMs: maybe(number),
        attempts: rng.pick([1, 2]),
        streamed: rng.next() < 0.5,
        agentId: maybe(text),
        agentRunId: maybe(text),
        ...(rng.next() < 0.7 && { agentVersion: maybe(text) }),
        createdAt: new Date(rng.pick([0, 1769092764123])),
      };
      const settlement: JournaledSettlement = { usage, keyId: usage.keyId, accountId: usage.accountId, spendMicros: number(), keyLeaseMicros: number(), accountLeaseMicros: number() };
      const line = encodeSettlement(settlement);
      const { createdAt, ...fields } = usage;
      const values = [settlement.keyId, settlement.accountId, settlement.spendMicros, settlement.keyLeaseMicros, settlement.accountLeaseMicros];
      const order = Object.keys({ ...fields, agentVersion: null }) as Array<keyof UsageRecord>;
      expect(line).toBe(`${JSON.stringify([...values, ...order.map((field) => usage[field] ?? null), createdAt.getTime()])}\n`);
      const decoded = decodeSettlement(line.trimEnd());
      expect(decoded?.usage).toEqual({ ...usage, agentVersion: usage.agentVersion ?? null });
      expect(decoded).toMatchObject({ keyId: settlement.keyId, accountId: settlement.accountId, spendMicros: settlement.spendMicros });
    }
  });

  it("hold the settlement's five values, the row's 24 fields in order and its time; numbers JSON cannot write as null", () => {
    const usage = { id: 'gen-1', accountId: 'a', createdAt: new Date(0), costMicros: Number.NaN, latencyMs: Number.POSITIVE_INFINITY, inputTokens: -0 } as unknown as UsageRecord;
    const line = encodeSettlement({ usage, keyId: null, accountId: 'a', spendMicros: 0, keyLeaseMicros: 0, accountLeaseMicros: 0 });
    // The settlement's five values, the usage row's 24 fields in order (absent ones null), its time.
    const expected = [null, 'a', 0, 0, 0, 'gen-1', 'a', ...Array(10).fill(null), -0, null, null, null, null, Number.NaN, Number.POSITIVE_INFINITY, null, null, null, null, null, 0];
    expect(expected).toHaveLength(30);
    expect(line).toBe(`${JSON.stringify(expected)}\n`);
    expect(line).toContain(',"a",null,null,null,null,null,null,null,null,null,null,0,null,null,null,null,null,null,');
  });
});
