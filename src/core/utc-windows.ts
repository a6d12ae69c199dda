/** UTC spend windows as integers, so SQL compares them without time-zone pitfalls. */
export const utcDayNumber = (at: Date): number => Math.floor(at.getTime() / 86_400_000);
export const utcMonthNumber = (at: Date): number => at.getUTCFullYear() * 12 + at.getUTCMonth();

export const nextUtcDay = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
export const nextUtcMonth = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
