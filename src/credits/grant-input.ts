import { z } from 'zod';

/**
 * The fields of a credit grant as people type them, one definition for the CLI, the admin
 * socket and the console. Only zod here: the console bundles this file into the browser.
 */
export const GrantAmountSchema = z
  .string()
  .trim()
  // At most 12 whole digits: the ledger's column holds 14, and a grant that large is a typo.
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'an amount such as 12 or 9.99 (digits, at most 6 decimals)')
  .refine((amount) => Number(amount) > 0, 'an amount above 0');

export const CurrencyCodeSchema = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{3}$/, 'a three-letter currency code such as USD or EUR');

/** A note on the grant (an invoice number, a reason), kept in the ledger. */
export const GrantNoteSchema = z.string().trim().max(500, 'a note of at most 500 characters');
