import { describe, expect, it } from 'vitest';
import { parseCorsOrigins } from '../../../src/config/cors-origins.ts';

describe('JUNCTION_CORS_ORIGINS', () => {
  it('is off when unset or blank', () => {
    expect(parseCorsOrigins(undefined)).toBeUndefined();
    expect(parseCorsOrigins('  ')).toBeUndefined();
  });

  it('takes a comma list of origins, or * alone', () => {
    expect(parseCorsOrigins('https://app.example.com, http://localhost:5173/')).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(parseCorsOrigins('*')).toBe('*');
  });

  it('refuses what a browser would never send as an Origin, naming the fix', () => {
    expect(() => parseCorsOrigins('app.example.com')).toThrow(/'app.example.com' is not an origin/);
    expect(() => parseCorsOrigins('https://app.example.com/path')).toThrow(/write it as https:\/\/app.example.com/);
    expect(() => parseCorsOrigins('*,https://app.example.com')).toThrow(/'\*' alone/);
  });
});
