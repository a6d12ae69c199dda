import { describe, expect, it } from 'vitest';
import { DeploymentWindow } from '../../../src/routing/deployment-window.ts';

describe('a deployment window', () => {
  it('holds rpm calls per minute and says when the oldest leaves', () => {
    const window = new DeploymentWindow({ rpm: 2, tpm: undefined });
    window.take(0, 0);
    window.take(10_000, 0);
    expect(window.fits(20_000, 0)).toBe(false);
    expect(window.waitMs(20_000, 0)).toBe(40_000);
    expect(window.fits(60_000, 0)).toBe(true);
    expect(window.requestsUsed(60_000)).toBe(1);
  });

  it('frees tokens as the calls holding them leave, and takes corrections', () => {
    const window = new DeploymentWindow({ rpm: undefined, tpm: 1_000 });
    window.take(0, 600);
    const second = window.take(5_000, 300);
    // 400 more need the first call's 600 to leave.
    expect(window.waitMs(6_000, 400)).toBe(54_000);
    expect(window.fits(6_000, 100)).toBe(true);
    second.tokens = 50;
    expect(window.tokensUsed(6_000)).toBe(650);
    expect(window.fits(6_000, 350)).toBe(true);
    expect(window.canHold(1_001)).toBe(false);
  });
});
