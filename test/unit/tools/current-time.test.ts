import { describe, expect, it } from 'vitest';
import { createCurrentTimeTool, describeInstant } from '../../../src/tools/builtin/current-time.ts';
import { compileTool } from '../../../src/tools/compile-tool.ts';
import { runTool } from '../../../src/tools/run-tool.ts';
import { toolContext } from './tool-test-helpers.ts';

const instant = new Date('2025-07-04T22:30:15.000Z');

describe('current_time', () => {
  it('describes the instant in UTC by default', async () => {
    const tool = compileTool(createCurrentTimeTool({ now: () => instant }), 'builtin', 'builtin');
    const result = await runTool(tool, {}, toolContext());
    expect(JSON.parse(result.content)).toEqual({
      time_zone: 'UTC',
      iso_utc: '2025-07-04T22:30:15.000Z',
      local: '2025-07-04 22:30:15',
      utc_offset: '+00:00',
      weekday: 'Friday',
      unix_seconds: 1751668215,
    });
  });

  it('gives the wall clock of an IANA time zone, across the date line and DST', () => {
    expect(describeInstant(instant, 'Asia/Tokyo')).toMatchObject({ local: '2025-07-05 07:30:15', utc_offset: '+09:00', weekday: 'Saturday' });
    expect(describeInstant(instant, 'America/New_York')).toMatchObject({ local: '2025-07-04 18:30:15', utc_offset: '-04:00' });
    expect(describeInstant(new Date('2025-01-15T12:00:00Z'), 'America/New_York').utc_offset).toBe('-05:00');
    expect(describeInstant(instant, 'Asia/Kolkata').utc_offset).toBe('+05:30');
  });

  it('returns an unknown time zone as an error result', async () => {
    const tool = compileTool(createCurrentTimeTool({ now: () => instant }), 'builtin', 'builtin');
    const result = await runTool(tool, { time_zone: 'Mars/Olympus' }, toolContext());
    expect(result).toMatchObject({ ok: false, content: 'Error: unknown time zone "Mars/Olympus" (use an IANA name such as "Europe/Paris")' });
  });
});
