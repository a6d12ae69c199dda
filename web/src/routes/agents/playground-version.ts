import type { AgentDetail } from '@contract/agent-editor.ts';
import { useCallback, useState } from 'react';
import { useSignedIn } from '../../api/queries.ts';

/** Which version the playground talks to: the published one, the newest save, or one number. */
export type VersionChoice = 'published' | 'latest' | number;

/** The `model` the Agents API is called with: a pinned reference (`id@N`, `id@latest`, `id@published`), or the bare id for a file agent. */
export function pinnedModel(agentId: string, choice: VersionChoice | undefined): string {
  return choice === undefined ? agentId : `${agentId}@${choice}`;
}

/** The choices a console agent offers, in the order the selector lists them. */
export function versionChoices(detail: Pick<AgentDetail, 'versions' | 'published_version' | 'newest_version'>): Array<{ value: VersionChoice; label: string }> {
  if (detail.versions.length === 0) return [];
  const choices: Array<{ value: VersionChoice; label: string }> = [];
  if (detail.published_version !== null) choices.push({ value: 'published', label: `Published (v${detail.published_version})` });
  if (detail.newest_version !== null && detail.newest_version !== detail.published_version) choices.push({ value: 'latest', label: `Newest draft (v${detail.newest_version})` });
  for (const version of detail.versions) choices.push({ value: version.version, label: `Version ${version.version}` });
  return choices;
}

/** A choice as the selector's option value, and back. */
export const choiceValue = (choice: VersionChoice): string => String(choice);
export function parseChoice(value: string): VersionChoice {
  return value === 'published' || value === 'latest' ? value : Number(value);
}

/** The version an answer came from, in words: `v3` reads "Version 3"; a file agent's content hash is shortened. */
export function versionName(agentVersion: string): string {
  const number = /^v([0-9]+)$/.exec(agentVersion)?.[1];
  return number === undefined ? `version ${agentVersion.slice(0, 12)}` : `Version ${number}`;
}

const storageKey = (scope: { accountId: string; userId: string; agentId: string }) => `junction.playground.${scope.accountId}.${scope.userId}.${scope.agentId}.version`;

function storedChoice(key: string | undefined): VersionChoice | undefined {
  if (!key) return undefined;
  try {
    const stored = localStorage.getItem(key);
    return stored === null ? undefined : parseChoice(stored);
  } catch {
    // Storage refused (private mode, a policy): the selector starts at the published version.
    return undefined;
  }
}

/**
 * The playground's version, kept in this browser beside its conversation (per person,
 * account and agent): a reload continues the conversation with the version it was held with.
 */
export function usePlaygroundVersion(detail: Pick<AgentDetail, 'id' | 'versions' | 'published_version' | 'newest_version'>) {
  const me = useSignedIn();
  const key = me?.current_account_id && me.user.id ? storageKey({ accountId: me.current_account_id, userId: me.user.id, agentId: detail.id }) : undefined;
  const [picked, setPicked] = useState<VersionChoice | undefined>(() => storedChoice(key));
  const choices = versionChoices(detail);
  // A file agent has no choices; a stored choice that no longer exists falls back to the first one.
  const current = choices.find((choice) => choice.value === picked)?.value ?? choices[0]?.value;
  const choose = useCallback(
    (choice: VersionChoice) => {
      setPicked(choice);
      try {
        if (key) localStorage.setItem(key, choiceValue(choice));
      } catch {
        // As above: nothing to keep it in.
      }
    },
    [key],
  );
  return { choices, current, choose };
}
