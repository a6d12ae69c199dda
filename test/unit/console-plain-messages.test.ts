import { describe, expect, it } from 'vitest';
import { plainMessage } from '../../web/src/api/plain-messages.ts';

/** The console shows the server's messages in people's words, beside the field they are about. */
describe('plainMessage', () => {
  it('drops the API field name and words zod comparisons', () => {
    expect(plainMessage("Invalid 'daily_limit_usd': a decimal USD amount.", 'daily_limit_usd')).toBe('A decimal USD amount.');
    expect(plainMessage("Invalid 'name': Too big: expected string to have <=200 characters.", 'name')).toBe('At most 200 characters.');
    expect(plainMessage('Too small: expected number to be >=1', null)).toBe('At least 1');
  });

  it('says waits in minutes', () => {
    expect(plainMessage('Too many sign-in attempts; try again in 890 s.', null)).toBe('Too many sign-in attempts; try again in 15 minutes.');
    expect(plainMessage('Too many sign-in attempts; try again in 30 s.', null)).toBe('Too many sign-in attempts; try again in 30 seconds.');
  });
});
