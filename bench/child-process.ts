import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/**
 * Bench processes run apart from the runner so that each one's CPU and memory are its
 * own. `startScript` waits for the script's first JSON line with a `url` (its address and keys);
 * `runScript` waits for it to exit and returns its last JSON line (its results).
 */
const started: ChildProcess[] = [];

/** Node's arguments for a bench script: a compiled `.js` runs as it is, TypeScript through tsx. */
const nodeArguments = (script: string): string[] => (script.endsWith('.js') ? [script] : ['--import', 'tsx', script]);

export async function startScript(script: string, env: Record<string, string>): Promise<{ pid: number; info: Record<string, string>; child: ChildProcess }> {
  const child = spawn(process.execPath, nodeArguments(script), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  // The listener stays for the child's life: an unread stdout pipe would block its writes.
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    let ready = false;
    lines.on('line', (line) => {
      if (ready || !line.startsWith('{')) return;
      const info = JSON.parse(line) as Record<string, string>;
      // A log line (a server's warning at start) is JSON too: the script's own line names its url.
      if (!('url' in info)) return;
      ready = true;
      resolve({ pid: child.pid ?? 0, info, child });
    });
    child.once('exit', () => {
      if (!ready) reject(new Error(`${script} exited before it was ready`));
    });
  });
}

export async function runScript<Result>(script: string, env: Record<string, string>): Promise<Result> {
  const child = spawn(process.execPath, nodeArguments(script), { env: { ...process.env, ...env, BENCH_JSON: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  let last = '';
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    if (line.startsWith('{')) last = line;
    else process.stderr.write(`${line}\n`);
  }
  const code = await new Promise<number | null>((done) => (child.exitCode !== null ? done(child.exitCode) : child.once('exit', done)));
  if (code !== 0 || last === '') throw new Error(`${script} failed (exit ${code})`);
  return JSON.parse(last) as Result;
}

export async function stopAll(): Promise<void> {
  for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
}

/** Resident set size of a process in MB (Linux /proc). */
export async function rssMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kilobytes / 1024;
}
