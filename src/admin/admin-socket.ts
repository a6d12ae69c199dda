import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import type { Services } from '../assembly/services.ts';
import { type AdminCommand, type ProgressSink, runAdminCommand } from './admin-commands.ts';

/**
 * The embedded store can be opened by one process only. While a server holds it, the
 * CLI reaches it through this Unix socket inside the data directory (mode 0600, so
 * only the owner of the data can use it) and the server runs the command.
 */
export const adminSocketPath = (dataDir: string): string => join(resolve(dataDir), 'admin.sock');

export async function startAdminSocket(services: Services, dataDir: string): Promise<Server> {
  const path = adminSocketPath(dataDir);
  if (existsSync(path)) {
    if (await isServing(path)) throw new Error(`another Junction server is already using ${resolve(dataDir)}`);
    rmSync(path);
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        // Newline-delimited JSON: progress lines while the command runs, then its result or error.
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        const line = (value: unknown) => response.write(`${JSON.stringify(value)}\n`);
        try {
          const command = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminCommand;
          line({ result: await runAdminCommand(services, command, (progress) => line({ progress })) });
        } catch (error) {
          line({ error: (error as Error).message });
        }
        response.end();
      })();
    });
  });
  // The socket is created owner-only (umask 077 while it is bound), then chmod'ed as well:
  // no moment at which another local user could connect.
  const previousUmask = process.umask(0o077);
  try {
    await new Promise<void>((done, fail) => server.once('error', fail).listen(path, done));
  } finally {
    process.umask(previousUmask);
  }
  chmodSync(path, 0o600);
  return server;
}

export function isServing(path: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = httpRequest({ socketPath: path, method: 'GET', path: '/' }, (response) => {
      response.resume();
      done(true);
    });
    probe.on('error', () => done(false));
    probe.end();
  });
}

export function sendAdminCommand(path: string, command: AdminCommand, onProgress?: ProgressSink): Promise<unknown> {
  return new Promise((done, fail) => {
    const call = httpRequest({ socketPath: path, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } }, (response) => {
      let buffered = '';
      let outcome: { result?: unknown; error?: string } | undefined;
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        buffered += text;
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const message = JSON.parse(buffered.slice(0, newline)) as { progress?: Record<string, unknown>; result?: unknown; error?: string };
          buffered = buffered.slice(newline + 1);
          if (message.progress) onProgress?.(message.progress);
          else outcome = message;
          newline = buffered.indexOf('\n');
        }
      });
      response.on('end', () => {
        if (!outcome) fail(new Error('the server closed the admin connection without an answer'));
        else if (outcome.error !== undefined) fail(new Error(outcome.error));
        else done(outcome.result);
      });
    });
    call.on('error', fail);
    call.end(JSON.stringify(command));
  });
}
