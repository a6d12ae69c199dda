import { resolveModel } from './lookup.ts';
import type { Catalog } from './types.ts';

/**
 * On a provider's own wire format, drop-in clients send that provider's bare model
 * names (`claude-sonnet-4-5` on /v1/messages, `gemini-2.5-flash` on /v1beta). A name
 * that is not itself a catalog id or alias resolves to the route's provider when the
 * catalog lists it there; anything else is left as sent (and answers not found).
 */
export function qualifyNativeModelName(catalog: Catalog, requested: string, providerId: string): string {
  if (requested.includes('/') || resolveModel(catalog, requested)) return requested;
  const qualified = `${providerId}/${requested}`;
  return resolveModel(catalog, qualified) ? qualified : requested;
}
