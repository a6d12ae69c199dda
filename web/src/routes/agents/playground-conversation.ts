import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { useConversation } from '../../api/conversation-queries.ts';
import { useSignedIn } from '../../api/queries.ts';
import { type Exchange, exchangesOf } from './playground-history.ts';
import { storeConversation, storedConversation } from './playground-storage.ts';

/**
 * The conversation the playground writes to, kept in this browser (per person, account and
 * agent) so a reload shows it again: `seed` receives its stored exchanges once it loads.
 */
export function usePlaygroundConversation(agentId: string, seed: (exchanges: Exchange[]) => void) {
  const me = useSignedIn();
  const accountId = me?.current_account_id;
  const userId = me?.user.id;
  const scope = accountId && userId ? { accountId, userId, agentId } : undefined;
  // null until the playground starts or leaves a conversation: until then the one kept in the browser.
  const [picked, setPicked] = useState<string | undefined | null>(null);
  const conversationId = picked === null ? scope && storedConversation(scope) : picked;
  const stored = useConversation(conversationId);
  // The conversation whose exchanges are drawn: later turns are drawn as they stream, never reloaded over.
  const seeded = useRef<string | undefined>(undefined);

  const remember = useCallback(
    (id: string | undefined) => {
      seeded.current = id;
      setPicked(id);
      if (accountId && userId) storeConversation({ accountId, userId, agentId }, id);
    },
    [accountId, userId, agentId],
  );

  useEffect(() => {
    if (stored.data && stored.isFetchedAfterMount && seeded.current !== stored.data.id) {
      seeded.current = stored.data.id;
      seed(exchangesOf(stored.data));
    }
    // A conversation that is gone (deleted, or of another account) is forgotten, not shown as an error.
    if (stored.error instanceof ApiError && stored.error.status === 404) remember(undefined);
  }, [stored.data, stored.isFetchedAfterMount, stored.error, seed, remember]);

  return { conversationId, loading: conversationId !== undefined && seeded.current !== conversationId && stored.isPending, remember };
}
