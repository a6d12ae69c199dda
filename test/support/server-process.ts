import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '../..');

export type ServerProcess = { child: ChildProcess; url: string; logs: string[] };

/**
 * Node's arguments for a server child: `npm start`'s own entry (the build check, then the
 * compiled server), so a test's server is what users run. Through tsx each start first
 * transpiled the ~300 source files the server loads: 3.8 s to ready on an existing
 * embedded store against 1.8 s compiled, on every start of these multi-process tests.
 */
export const SERVER_ARGS: readonly string[] = [join(ROOT, 'scripts/start.mjs')];

/** `npm start`'s entry as a real child process; resolves once it logged its listening URL. */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawn(process.execPath, SERVER_ARGS, { env, stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  const logs: string[] = [];
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${logs.join('\n')}`)));
    lines.on('line', (line) => {
      logs.push(line);
      const match = /"url":"(http:[^"]+)"/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url, logs };
}
