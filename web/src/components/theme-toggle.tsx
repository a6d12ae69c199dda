import { useState } from 'react';
import { chooseTheme, storedTheme, THEME_CHOICES, type ThemeChoice } from './theme.ts';

const LABELS: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** The theme picker of the top bar: system, light or dark. */
export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  return (
    <label className="theme-toggle">
      <span className="visually-hidden">Theme</span>
      <select
        value={choice}
        onChange={(event) => {
          const picked = event.target.value as ThemeChoice;
          setChoice(picked);
          chooseTheme(picked);
        }}
      >
        {THEME_CHOICES.map((option) => (
          <option key={option} value={option}>
            {LABELS[option]} theme
          </option>
        ))}
      </select>
    </label>
  );
}
