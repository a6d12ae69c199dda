/** The console's colour theme: the system's (prefers-color-scheme) unless the person picked one, kept in this browser. */

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'junction.theme';
const darkQuery = (): MediaQueryList | undefined => (typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : undefined);

export function storedTheme(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    // Storage refused (private mode, a policy): the system's theme.
    return 'system';
  }
}

/** Sets `data-theme` on <html> to the theme in force, which the stylesheet's variables follow. */
export function applyTheme(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && darkQuery()?.matches === true);
  document.documentElement.dataset['theme'] = dark ? 'dark' : 'light';
}

export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Not kept beyond this page, but still applied.
  }
  applyTheme(choice);
}

/** Applies the stored choice now, and follows the system's setting while the choice is "system". */
export function startTheme(): void {
  applyTheme(storedTheme());
  darkQuery()?.addEventListener('change', () => applyTheme(storedTheme()));
}
