import { describe, expect, it } from 'vitest';
import { boundContent, boundText, STEP_TEXT_LIMIT } from '../../../src/runs/step-content.ts';

describe('what a run step keeps of its content', () => {
  it('cuts a long text at the bound with a marker saying how much went', () => {
    const cut = boundText('a'.repeat(STEP_TEXT_LIMIT + 123));
    expect(cut.startsWith('a'.repeat(STEP_TEXT_LIMIT))).toBe(true);
    expect(cut.endsWith('… [cut: 123 more characters]')).toBe(true);
    expect(boundText('short')).toBe('short');
  });

  it('replaces key-shaped strings and drops credential fields wherever they are', () => {
    const kept = boundContent({
      text: 'use sk-jn-AbCdEfGhIjKlMnOpQrStUv12 or Bearer abcdefghijklmnop.qrs',
      server: { url: 'https://mcp.example', headers: { authorization: 'Bearer secret-value-123456' } },
      nested: [{ api_key: 'plain', password: 'hunter2hunter2' }],
    });
    const text = JSON.stringify(kept);
    expect(text).not.toContain('AbCdEfGhIjKlMnOpQrStUv12');
    expect(text).not.toContain('abcdefghijklmnop');
    expect(text).not.toContain('secret-value');
    expect(text).not.toContain('hunter2');
    expect(kept).toEqual({
      text: 'use [redacted] or [redacted]',
      server: { url: 'https://mcp.example', headers: '[redacted]' },
      nested: [{ api_key: '[redacted]', password: '[redacted]' }],
    });
  });

  it('caps lists and depth, and leaves numbers and booleans as they are', () => {
    const kept = boundContent({ list: Array.from({ length: 60 }, (_, index) => index), deep: { a: { b: { c: { d: { e: { f: 1 } } } } } }, ok: true }) as Record<string, unknown>;
    expect((kept['list'] as unknown[]).length).toBe(51);
    expect((kept['list'] as unknown[]).at(-1)).toBe('[cut: 10 more entries]');
    expect(JSON.stringify(kept['deep'])).toContain('[cut: nested too deep]');
    expect(kept['ok']).toBe(true);
  });
});
