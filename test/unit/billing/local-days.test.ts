import { describe, expect, it } from 'vitest';
import { isTimeZone, localDays } from '../../../src/billing/local-days.ts';

/** Local calendar days as instants: each begins at its own midnight, clock changes included. */
describe('localDays', () => {
  const hours = (days: { starts: Date[] }, end: Date) => [...days.starts.slice(1), end].map((next, index) => (next.getTime() - (days.starts[index] as Date).getTime()) / 3_600_000);

  it('cuts New York days at its midnights: 23 hours in March, 25 in November', () => {
    const march = localDays('America/New_York', new Date('2026-03-07T05:00:00Z'), new Date('2026-03-10T04:00:00Z'), 10);
    expect(march.days).toEqual(['2026-03-07', '2026-03-08', '2026-03-09']);
    expect(march.starts.map((start) => start.toISOString())).toEqual(['2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
    expect(hours(march, new Date('2026-03-10T04:00:00Z'))).toEqual([24, 23, 24]);
    const november = localDays('America/New_York', new Date('2026-10-31T04:00:00Z'), new Date('2026-11-02T05:00:00Z'), 10);
    expect(hours(november, new Date('2026-11-02T05:00:00Z'))).toEqual([24, 25]);
  });

  it('starts at the day holding `from`, across a month end, in zones ahead of UTC and off the hour', () => {
    const kolkata = localDays('Asia/Kolkata', new Date('2026-01-30T20:00:00Z'), new Date('2026-02-01T18:30:00Z'), 10);
    expect(kolkata.days).toEqual(['2026-01-31', '2026-02-01']);
    expect(kolkata.starts.map((start) => start.toISOString())).toEqual(['2026-01-30T18:30:00.000Z', '2026-01-31T18:30:00.000Z']);
  });

  it('refuses more days than asked for, and knows real zones only', () => {
    expect(() => localDays('UTC', new Date('2026-01-01T00:00:00Z'), new Date('2026-01-05T00:00:00Z'), 3)).toThrow(RangeError);
    expect(localDays('UTC', new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'), 3).days).toEqual(['2026-01-01']);
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
