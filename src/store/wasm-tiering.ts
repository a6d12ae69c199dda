import { setFlagsFromString } from 'node:v8';

/**
 * V8 compiles each WASM function first with its baseline compiler and recompiles it with
 * its optimising one (TurboFan) once it has run for a budget (`--wasm-tiering-budget`,
 * roughly bytes of code executed; 1.8 MB by default). Starting the embedded engine runs
 * much of PostgreSQL's start-up code, and at the default budget one start recompiled 103
 * functions with 407 MB of compiler memory in all (`--trace-wasm-compilation-times`), each
 * block mapped afresh and faulted in page by page under the server's allocator setting
 * (src/ops/allocator-env.ts); at ten times the budget, 23 functions and 165 MB, while the
 * functions a busy server runs over and over still reach TurboFan (291 of them by the end
 * of 12 s of streaming load on the bench's gateway).
 *
 * Fewer recompilations make a faster start with fewer page faults and less resident
 * memory, at no cost to the code a busy server runs hot.
 */
const TIERING_BUDGET = 18_000_000;

/**
 * Sets the budget for the whole process (V8's flags are per process), before the engine's
 * module is compiled; setting it again when another engine opens changes nothing. An
 * operator's own `--wasm-tiering-budget` on node's command line wins.
 */
export function applyEngineWasmTiering(): void {
  if (process.execArgv.some((argument) => argument.startsWith('--wasm-tiering-budget'))) return;
  setFlagsFromString(`--wasm-tiering-budget=${TIERING_BUDGET}`);
}
