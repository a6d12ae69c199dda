import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '../..');

export type ServerProcess = { child: ChildProcess; url: string; logs: string[] };

/** `npm start`'s entry as a real child process; resolves once it logged its listening URL. */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
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
