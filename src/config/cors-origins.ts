/**
 * `JUNCTION_CORS_ORIGINS`: which web pages may call the API from a browser. A comma
 * list of origins (`https://app.example.com,http://localhost:5173`) or `*`. Unset means
 * no cross-origin access at all (a browser refuses every such response).
 */
export type CorsOrigins = '*' | readonly string[];

export function parseCorsOrigins(text: string | undefined): CorsOrigins | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.includes('*')) {
    if (entries.length > 1) throw new Error("JUNCTION_CORS_ORIGINS: '*' allows every origin; list origins or give '*' alone");
    return '*';
  }
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`JUNCTION_CORS_ORIGINS: '${entry}' is not an origin (write it as https://host[:port])`);
    }
    // A browser's Origin header is scheme://host[:port], nothing else: a path would never match.
    if (url.origin === 'null' || url.origin !== entry.replace(/\/$/, '')) {
      throw new Error(`JUNCTION_CORS_ORIGINS: '${entry}' is not an origin (write it as ${url.origin === 'null' ? 'https://host[:port]' : url.origin})`);
    }
    return url.origin;
  });
}
