/**
 * Tool files may be TypeScript. Run from source, the server already imports through tsx;
 * the compiled server (`build/`) registers tsx's loader at the first `.ts` tool file, so
 * a deployment without TypeScript tools never loads it.
 */
let registered: Promise<void> | undefined;

export function ensureTypeScriptImports(): Promise<void> {
  if (import.meta.url.endsWith('.ts')) return Promise.resolve();
  // Both of tsx's loaders: a .ts file outside an ESM package is loaded as CommonJS.
  registered ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
    esm.register();
    cjs.register();
  });
  return registered;
}
