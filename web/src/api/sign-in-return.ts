/** Pages reachable without a session: a 401 there is the page's own business, and never a place to return to. */
export const PUBLIC_PAGES = ['/sign-in', '/setup', '/set-password', '/invite'];

/** The sign-in page's search: where to come back to once signed in (this page), unless this is a public page. */
export function returnHere(): { next?: string } {
  const { pathname, search } = window.location;
  return PUBLIC_PAGES.includes(pathname) ? {} : { next: `${pathname}${search}` };
}
