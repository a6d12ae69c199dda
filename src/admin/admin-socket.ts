import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import type { Services } from '../services.ts';
import { type AdminCommand, runAdminCommand } from './admin-commands.ts';

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
        try {
          const command = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminCommand;
          const result = await runAdminCommand(services, command);
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result }));
        } catch (error) {
          response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (error as Error).message }));
        }
      })();
    });
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(path, done));
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

export function sendAdminCommand(path: string, command: AdminCommand): Promise<unknown> {
  return new Promise((done, fail) => {
    const call = httpRequest({ socketPath: path, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: string };
        if (body.error !== undefined) fail(new Error(body.error));
        else done(body.result);
      });
    });
    call.on('error', fail);
    call.end(JSON.stringify(command));
  });
}
