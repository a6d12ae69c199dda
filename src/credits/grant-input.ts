import { z } from 'zod';

/**
 * The fields of a credit grant, one definition for the CLI, the admin socket and the
 * console. Only zod here: the console bundles this file into the browser.
 */
const AMOUNT = /^\d{1,12}(\.\d{1,6})?$/;

export const GrantAmountSchema = z
  .string()
  // At most 12 whole digits: the ledger's column holds 14, and a grant that large is a typo.
  .regex(AMOUNT, 'an amount such as 12 or 9.99 (digits, at most 6 decimals)')
  // Said only of a well-formed amount: a malformed one gets the sentence above alone.
  .refine((amount) => !AMOUNT.test(amount) || Number(amount) > 0, 'an amount above 0');

export const CurrencyCodeSchema = z.string().regex(/^[A-Z]{3}$/, 'a three-letter currency code such as USD or EUR');

/** A note on the grant (an invoice number, a reason), kept in the ledger. */
export const GrantNoteSchema = z.string().max(500, 'a note of at most 500 characters');
