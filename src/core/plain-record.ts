/** A plain JSON object (what JSON.parse makes), not an array, null or a class instance. */
export const isPlainRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
