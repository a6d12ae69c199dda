import { buildApp } from '../src/app.ts';
import type { Services } from '../src/assembly/services.ts';
import { issueSetupLink } from '../src/console/session-routes.ts';

/** The app listening on a free port of 127.0.0.1, with its first owner set up through the setup link and their console session cookie. */
export async function listenSignedIn(services: Services, email: string): Promise<{ url: string; cookie: string }> {
  const app = await buildApp(services);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const link = await issueSetupLink(services.db, url, new Date());
  const token = new URL(link as string).searchParams.get('token') ?? '';
  const setup = await app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: url, host: new URL(url).host },
    payload: { token, email, password: 'correct horse battery' },
  });
  return { url, cookie: /junction_session=[^;]+/.exec(String(setup.headers['set-cookie']))?.[0] ?? '' };
}
