import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { leftoverSegments, readSegment, SettlementFileJournal } from '../../../src/billing/settlement-file-journal.ts';
import type { JournaledSettlement } from '../../../src/billing/settlement-journal-line.ts';
import { usageRecordFixture } from '../../support/usage-record-fixture.ts';

/**
 * The write-behind journal of settled calls (embedded store): what it writes is on the
 * disk within its sync interval, a segment goes once the database has all of it, and a
 * file a killed process cut short reads back up to its last whole line.
 */
const folders: string[] = [];
const folder = () => {
  const made = mkdtempSync(join(tmpdir(), 'junction-settling-'));
  folders.push(made);
  return join(made, 'journal');
};
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

const settlement = (costMicros: number): JournaledSettlement => ({
  usage: usageRecordFixture(
    { accountId: '00000000-0000-4000-8000-000000000001', keyId: '00000000-0000-4000-8000-000000000002' },
    { costMicros, units: { images: 2 }, requestedModel: 'openai/"quoted"\nmodel ✓', agentVersion: 'v3' },
  ),
  keyId: '00000000-0000-4000-8000-000000000002',
  accountId: '00000000-0000-4000-8000-000000000001',
  spendMicros: costMicros,
  keyLeaseMicros: 7,
  accountLeaseMicros: 9,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('settlement file journal', () => {
  it('writes a recorded settlement to the disk on its own once its sync interval is up, as it was recorded', async () => {
    const directory = folder();
    const journal = new SettlementFileJournal(directory, { syncEveryMs: 10 });
    const recorded = settlement(1234);
    journal.record(recorded);
    // Nobody calls sync(): the journal's own timer writes the file (waited for up to 5 s on a busy machine).
    const deadline = Date.now() + 5_000;
    while ((await leftoverSegments(directory)).length === 0 && Date.now() < deadline) await sleep(10);
    while ((await readSegment((await leftoverSegments(directory))[0] as string)).length === 0 && Date.now() < deadline) await sleep(10);
    const files = await leftoverSegments(directory);
    expect(files).toHaveLength(1);
    expect(await readSegment(files[0] as string)).toEqual([recorded]);
    expect((await readSegment(files[0] as string))[0]?.usage?.createdAt).toBeInstanceOf(Date);
    // Only this process may read what it bills.
    expect(statSync(files[0] as string).mode & 0o777).toBe(0o600);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    // Its file stays open until closed: left open, the test runner's process would close it when collected.
    await journal.close();
  });

  it('removes a segment once it is closed and the database has every settlement in it, and keeps the rest', async () => {
    const directory = folder();
    const journal = new SettlementFileJournal(directory, { syncEveryMs: 5, segmentMs: 30 });
    const first = [journal.record(settlement(1)), journal.record(settlement(2))];
    await sleep(50);
    const second = journal.record(settlement(3));
    await journal.sync();
    expect(await leftoverSegments(directory)).toHaveLength(2);

    journal.release(first[0] as never);
    await journal.sync();
    expect(await leftoverSegments(directory)).toHaveLength(2);
    journal.release(first[1] as never);
    await journal.sync();
    const left = await leftoverSegments(directory);
    expect(left).toHaveLength(1);
    expect((await readSegment(left[0] as string)).map((entry) => entry.spendMicros)).toEqual([3]);

    // Shut down with the third settlement not in the database: its segment stays for the next start.
    await journal.close();
    expect(await leftoverSegments(directory)).toEqual(left);
    expect(second.unreleased).toBe(1);
  });

  it('leaves no file behind once the database has everything, even while it stays open', async () => {
    const directory = folder();
    const journal = new SettlementFileJournal(directory, { syncEveryMs: 5 });
    const marks = [journal.record(settlement(1)), journal.record(settlement(2))];
    await journal.sync();
    expect(await leftoverSegments(directory)).toHaveLength(1);
    for (const mark of marks) journal.release(mark);
    // An idle server: nothing recorded since, the journal not closed.
    await journal.sync();
    expect(await leftoverSegments(directory)).toEqual([]);
    // The next call starts a new file.
    journal.record(settlement(3));
    await journal.sync();
    expect((await Promise.all((await leftoverSegments(directory)).map(readSegment))).flat().map((entry) => entry.spendMicros)).toEqual([3]);
    await journal.close();
  });

  it('reads a file cut short by a kill up to its last whole line, and lists segments oldest first', async () => {
    const directory = folder();
    const journal = new SettlementFileJournal(directory, { syncEveryMs: 5, segmentMs: 10 });
    journal.record(settlement(1));
    await sleep(20);
    journal.record(settlement(2));
    await journal.close();
    const files = await leftoverSegments(directory);
    expect(files).toHaveLength(2);
    expect((await readSegment(files[0] as string)).map((entry) => entry.spendMicros)).toEqual([1]);
    appendFileSync(files[1] as string, '{"usage":{"id":"gen-cut","accou');
    expect((await readSegment(files[1] as string)).map((entry) => entry.spendMicros)).toEqual([2]);
  });

  it('reports a folder it cannot write once and stops taking settlements', async () => {
    const directory = folder();
    // A file where the folder should be: mkdir fails.
    writeFileSync(join(directory, '..', 'journal'), 'not a folder');
    const errors: unknown[] = [];
    const journal = new SettlementFileJournal(directory, { syncEveryMs: 5, onError: (error) => errors.push(error) });
    journal.record(settlement(1));
    await journal.sync();
    journal.record(settlement(2));
    await journal.sync();
    expect(errors).toHaveLength(1);
    expect(journal.healthy).toBe(false);
  });
});
