import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  /** Freezes the server and its backends (SIGSTOP): connections stay open, nothing answers. */
  pause(): Promise<void>;
  /** Lets a paused server run again (SIGCONT). */
  resume(): Promise<void>;
  destroy(): Promise<void>;
};

export const scratchClusterAvailable = (): boolean => existsSync(join(BIN, 'initdb'));

/** initdb refuses to run as root: as root, the cluster runs as the postgres user. */
const asOwner = (command: string, args: string[]): [string, string[]] => (process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]);

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
  /** The postmaster (its id is the first line of postmaster.pid) and the processes it started. */
  const serverProcesses = async (): Promise<number[]> => {
    const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]);
    return [
      postmaster,
      ...stdout
        .split('\n')
        .map((line) => Number(line.trim()))
        .filter((pid) => pid > 0),
    ];
  };
  const signal = async (name: NodeJS.Signals) => {
    for (const pid of await serverProcesses()) process.kill(pid, name);
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    async destroy() {
      await signal('SIGCONT').catch(() => undefined);
      await stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
