/** A balance to the micro-dollar (`$9.999934`): a call costs fractions of a cent, and a balance rounded to cents would not move after it. */
export const exactUsd = (value: number): string => value.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });
