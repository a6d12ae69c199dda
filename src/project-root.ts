import { fileURLToPath } from 'node:url';

/**
 * The checkout's root folder (migrations, the console's build). This file sits one level
 * below it both as source (`src/`) and in the compiled server (`build/`), so the same
 * relative URL holds for both.
 */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
