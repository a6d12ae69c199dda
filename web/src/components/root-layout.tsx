import { Outlet, useMatches } from '@tanstack/react-router';
import { useEffect } from 'react';
import { startTheme } from './theme.ts';

// Before the first page draws: every page, signed in or not, in the theme in force.
startTheme();

/** Every page names itself in the browser tab (and in history), from its route's title. */
export function RootLayout() {
  const title = useMatches({ select: (matches) => matches.findLast((match) => match.staticData.title)?.staticData.title });
  useEffect(() => {
    // Untitled (the not-found page): that page names itself.
    if (title) document.title = `${title} · Junction`;
  }, [title]);
  return <Outlet />;
}
