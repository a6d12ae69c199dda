import { existsSync, watch, type FSWatcher } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

/**
 * Calls `onChange` (debounced) after anything under the given folders changes.
 * The registries reload a whole folder on every change (they are small), so event
 * details do not matter, which also sidesteps fs.watch's platform differences in
 * what it reports for editors' write-to-temp-then-rename saves. Reloads never
 * overlap: a change during a reload schedules one more after it.
 */
export type FolderWatcher = { close(): void };

export type WatchOptions = {
  folders: Array<{ path: string; recursive: boolean }>;
  debounceMs: number;
  onChange: () => Promise<void>;
  onWatchError: (error: Error) => void;
};

export function watchFolders(options: WatchOptions): FolderWatcher {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let pending = false;
  let closed = false;

  const run = (): void => {
    if (closed) return;
    if (running) {
      pending = true;
      return;
    }
    running = options
      .onChange()
      .catch((error: unknown) => options.onWatchError(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        running = undefined;
        if (pending) {
          pending = false;
          run();
        }
      });
  };
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(run, options.debounceMs);
  };

  for (const folder of options.folders) {
    // A folder that does not exist yet is not watched; a restart picks it up.
    if (!existsSync(folder.path)) continue;
    try {
      watchers.push(openWatcher(folder.path, folder.recursive, schedule, options.onWatchError));
    } catch (error) {
      options.onWatchError(error as Error);
    }
  }

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

function openWatcher(path: string, recursive: boolean, onEvent: () => void, onError: (error: Error) => void): FSWatcher {
  let watcher: FSWatcher;
  try {
    watcher = watch(path, { recursive, persistent: false }, onEvent);
  } catch (error) {
    // Recursive watching is missing on some platforms/versions: fall back to the top level.
    if (!recursive || (error as NodeJS.ErrnoException).code !== 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM') throw error;
    watcher = watch(path, { persistent: false }, onEvent);
  }
  watcher.on('error', onError);
  return watcher;
}

/** How a file is named in errors: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const relativePath = relative(process.cwd(), file);
  return relativePath.startsWith('..') || isAbsolute(relativePath) ? file : relativePath;
}
