import type { Command } from 'commander';
import { type AdminCommand, AdminCommandSchema } from '../admin/admin-commands.ts';
import { CliUsageError } from './run-command.ts';

/** Fields whose value must never be echoed back. */
const SECRET_FIELDS = new Set(['password']);
/** Fields that come from somewhere other than an option of their own name. */
const FIELD_NAMES: Record<string, string> = { password: 'the password read from standard input' };

/**
 * Checks a command built from the command line before it runs, so a bad value reads
 * as one sentence naming the option as typed and what it expects
 * (`--total-limit-usd expects a USD amount of 0 or more, such as 5 or 2.50, not "-5".`).
 * The options' raw text comes from commander, which keeps what was typed.
 */
export function checkCommand(command: AdminCommand, cli: Command): void {
  const parsed = AdminCommandSchema.safeParse(command);
  if (parsed.success) return;
  const typed = cli.opts<Record<string, unknown>>();
  const sentences = parsed.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? 'command');
    const option = cli.options.find((candidate) => candidate.attributeName() === field);
    const name = option?.long ?? FIELD_NAMES[field] ?? `<${field}>`;
    const value = typed[field] ?? (command as Record<string, unknown>)[field];
    const shown = value === undefined || SECRET_FIELDS.has(field) ? '' : `, not ${JSON.stringify(String(value))}`;
    return `${name} expects ${issue.message}${shown}.`;
  });
  throw new CliUsageError(sentences.join('\n'));
}
