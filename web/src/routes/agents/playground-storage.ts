/** Where the playground keeps its open conversation: per person, account and agent, in this browser only. */
const storageKey = (scope: { accountId: string; userId: string; agentId: string }) => `junction.playground.${scope.accountId}.${scope.userId}.${scope.agentId}`;

export function storedConversation(scope: { accountId: string; userId: string; agentId: string }): string | undefined {
  try {
    return localStorage.getItem(storageKey(scope)) ?? undefined;
  } catch {
    // Storage refused (private mode, a policy): the playground still works, it just forgets on reload.
    return undefined;
  }
}

export function storeConversation(scope: { accountId: string; userId: string; agentId: string }, conversationId: string | undefined): void {
  try {
    if (conversationId === undefined) localStorage.removeItem(storageKey(scope));
    else localStorage.setItem(storageKey(scope), conversationId);
  } catch {
    // As above: nothing to keep it in.
  }
}
