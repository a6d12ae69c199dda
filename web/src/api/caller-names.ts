/** Calls made without a key (the console's playground and try-it, the operator's CLI): one name everywhere, the one the server's charts use. */
export const NO_KEY_CALLER = 'console and operator';

/** A UTC day `2026-12-05` as the console writes days everywhere: `5 Dec`. */
export const dayLabel = (day: string): string => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
