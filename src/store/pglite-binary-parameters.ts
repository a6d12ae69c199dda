import type { PGlite, QueryOptions } from '@electric-sql/pglite';

/**
 * A Uint8Array parameter goes to PGlite as it is, which its protocol writer sends in
 * binary format (binary-records.ts arrays), as node-postgres sends a Buffer. PGlite's
 * `query` otherwise runs every value through the serializer of its parameter's type,
 * which makes an array literal of the bytes of an array-typed one.
 */
export function serializeValue(db: PGlite, typeOid: number, value: unknown): string | Uint8Array {
  if (value instanceof Uint8Array) return value;
  const serializer = db.serializers[typeOid];
  return serializer ? serializer(value) : String(value);
}

/** Options for PGlite's `query` that let `params`' bytes through; undefined when there are none (most queries). */
export function binaryParameterOptions(db: PGlite, params: readonly unknown[]): QueryOptions | undefined {
  if (!params.some((value) => value instanceof Uint8Array)) return undefined;
  // Asked per parameter type id, so every type defers to serializeValue.
  const serializers = new Proxy({}, { get: (_target, typeOid) => (value: unknown) => serializeValue(db, Number(typeOid), value) });
  return { serializers };
}
