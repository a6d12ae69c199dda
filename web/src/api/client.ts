import type { z } from 'zod';
import { plainMessage } from './plain-messages.ts';

/** An error the console API answered: its message is shown beside the control that caused it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null,
    /** Every problem by field path, when the server lists them (an agent save). */
    readonly issues: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

/** The session's CSRF token, for requests made outside `api()` (streams, uploads). */
export const currentCsrfToken = (): string => csrfToken;

/** Set from `GET /me`; sent as `x-csrf-token` on every mutating request. Never stored beyond memory. */
let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

/**
 * One call to `/console/api`: same origin, the session cookie travels by itself (it is
 * httpOnly: scripts never see it), answers are checked against the shared schema.
 */
export async function api<Schema extends z.ZodType>(schema: Schema, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<z.infer<Schema>> {
  const method = init.method ?? 'GET';
  const response = await reach(`/console/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(method !== 'GET' && { 'x-csrf-token': csrfToken }),
      ...init.headers,
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : {};
  if (!response.ok) {
    const { error, issues } = json as { error?: { message?: string; param?: string | null }; issues?: Array<{ path: string; message: string }> };
    const param = error?.param ?? null;
    throw new ApiError(
      response.status,
      plainMessage(error?.message ?? `Request failed (${response.status})`, param),
      param,
      (issues ?? []).map((issue) => ({ path: issue.path, message: plainMessage(issue.message, null) })),
    );
  }
  return schema.parse(json);
}

/** Text an endpoint answers as it is (an agent's YAML). */
export async function apiText(path: string): Promise<string> {
  const response = await reach(`/console/api${path}`, { credentials: 'same-origin' });
  if (!response.ok) throw new ApiError(response.status, `Request failed (${response.status})`, null);
  return response.text();
}

/** A fetch whose network failure (offline, server down) reads as what it is, not "Failed to fetch". */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw new ApiError(0, 'Cannot reach the Junction server: check your connection, then try again.', null);
  }
}

/** `1234.5` → `$1,234.50`; small amounts keep their significant digits. */
export function usd(value: number): string {
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 6 : 2;
  return value.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: digits });
}

export const dateTime = (iso: string | null): string => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—');
