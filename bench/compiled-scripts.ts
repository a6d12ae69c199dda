/**
 * Junction under benchmark runs compiled as `npm start` runs the server (esbuild, the
 * settings of scripts/server-bundle.mjs), not through tsx: tsx's transform keeps function
 * names (a helper call per closure made) and its loader stays in the process, which cost
 * about a quarter of the gateway's CPU per request when measured.
 * The scripts that host Junction are compiled together, once per bench run, into
 * bench-build/ (one level below the root, as src/ and bench/ are, so their paths from
 * `import.meta` still hold).
 */
// @ts-expect-error: a plain ES module of the build scripts, without type declarations
import { bundleServer } from '../scripts/server-bundle.mjs';

const HOSTS = ['bench/gateway-server.ts', 'bench/agent-turn.ts', 'bench/scale-server.ts', 'bench/runs-scale-server.ts'] as const;
let compiled: Promise<void> | undefined;

/** The compiled form of one of the scripts that host Junction; startScript and runScript run a .js without tsx. */
export async function compiledScript(source: (typeof HOSTS)[number]): Promise<string> {
  compiled ??= bundleServer({ entryPoints: [...HOSTS], outdir: 'bench-build' }) as Promise<void>;
  await compiled;
  return source.replace(/^bench\//, 'bench-build/').replace(/\.ts$/, '.js');
}
