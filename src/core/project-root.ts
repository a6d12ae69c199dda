import { fileURLToPath } from 'node:url';

/**
 * The checkout's root folder (migrations, the console's build). As source this file is in
 * `src/core/`, two levels below it; compiled, it is part of a bundle in `build/` (or
 * `bench-build/`), one level below it.
 */
const fromSource = /[/\\]src[/\\]core[/\\]project-root\.ts$/.test(fileURLToPath(import.meta.url));
export const PROJECT_ROOT = fileURLToPath(new URL(fromSource ? '../../' : '../', import.meta.url));
