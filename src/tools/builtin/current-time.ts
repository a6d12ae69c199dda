import { z } from 'zod';
import { defineTool } from '../define-tool.ts';

/**
 * Models do not know what time it is. Returns the instant in UTC plus the wall
 * clock, offset and weekday in the requested IANA zone, so the model never has to
 * do time-zone arithmetic itself.
 */

export type CurrentTime = {
  time_zone: string;
  iso_utc: string;
  local: string;
  utc_offset: string;
  weekday: string;
  unix_seconds: number;
};

export function describeInstant(instant: Date, timeZone: string): CurrentTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
      timeZoneName: 'longOffset',
    }).formatToParts(instant);
  } catch {
    throw new Error(`unknown time zone "${timeZone}" (use an IANA name such as "Europe/Paris")`);
  }
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((candidate) => candidate.type === type)?.value ?? '';
  // longOffset renders "GMT+02:00", or plain "GMT" at offset zero.
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return {
    time_zone: timeZone,
    iso_utc: instant.toISOString(),
    local: `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`,
    utc_offset: offset,
    weekday: part('weekday'),
    unix_seconds: Math.floor(instant.getTime() / 1000),
  };
}

export function createCurrentTimeTool(options: { now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date());
  return defineTool({
    name: 'current_time',
    description: 'Returns the current date and time, in UTC and in an optional IANA time zone (e.g. "America/New_York").',
    parameters: z.object({
      time_zone: z.string().min(1).max(64).optional().describe('IANA time zone name; UTC when omitted'),
    }),
    execute: ({ time_zone }) => describeInstant(now(), time_zone ?? 'UTC'),
  });
}
