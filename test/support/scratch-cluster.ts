import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp folder, a free port), so a
 * chaos test can stop and start a database without touching the shared server.
 * Uses the machine's PostgreSQL 15 binaries; pgvector comes from its extension folder.
 */
const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

export type ScratchCluster = {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
};

export const scratchClusterAvailable = (): boolean => existsSync(join(BIN, 'initdb'));

/** initdb refuses to run as root: as root, the cluster runs as the postgres user. */
const asOwner = (command: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];

async function exec(command: string, args: string[]): Promise<void> {
  const [file, argv] = asOwner(command, args);
  await run(file, argv, { timeout: 60_000 });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export async function startScratchCluster(): Promise<ScratchCluster> {
  const root = mkdtempSync(join(tmpdir(), 'junction-chaos-pg-'));
  const dataDir = join(root, 'data');
  if (process.getuid?.() === 0) {
    chmodSync(root, 0o755);
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(group.trim()));
  }
  const port = await freePort();
  await exec(join(BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => exec(join(BIN, 'pg_ctl'), ['-D', dataDir, '-o', options, '-l', join(root, 'log'), '-w', 'start']);
  const stop = () => exec(join(BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async destroy() {
      await stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
