import { existsSync } from 'node:fs';
import { adminSocketPath, isServing, sendAdminCommand } from '../admin/admin-socket.ts';
import { type AdminCommand, type ProgressSink, runAdminCommand } from '../admin/admin-commands.ts';
import { readEnvConfig } from '../config/env-config.ts';
import { createServices } from '../assembly/services.ts';

/** A command that cannot run as asked: the CLI prints the message and exits non-zero. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

/**
 * Runs an operator command on the store the server uses (same env). With the embedded
 * store held by a running server, the command goes to that server's admin socket.
 */
export async function runCommand(command: AdminCommand, onProgress?: ProgressSink): Promise<unknown> {
  const config = readEnvConfig({ LOG_LEVEL: 'silent', ...process.env });
  if (!config.databaseUrl && config.dataDir.startsWith('memory://')) {
    // An in-memory store of the CLI's own vanishes when the command ends: a key made
    // there would be printed, yet no server would ever know it.
    throw new CliUsageError(
      'JUNCTION_DATA_DIR=memory:// is an in-memory store that only its own process can see, so this command would act on a throwaway store. ' +
        "Point the CLI at the server's store: the same JUNCTION_DATA_DIR folder, or the same DATABASE_URL.",
    );
  }
  const embeddedDir = !config.databaseUrl && !config.dataDir.startsWith('memory://') ? config.dataDir : undefined;
  if (embeddedDir) {
    const socket = adminSocketPath(embeddedDir);
    if (existsSync(socket) && (await isServing(socket))) return sendAdminCommand(socket, command, onProgress);
  }
  // A command that spends (knowledge indexing embeds through the pipeline) takes budget
  // leases, and a lease hangs off a registered process row (budget_leases.holder_id).
  const services = await createServices(config, { registerProcess: command.command === 'knowledge.index', loadAgents: false });
  try {
    return await runAdminCommand(services, command, onProgress);
  } finally {
    await services.close();
  }
}
