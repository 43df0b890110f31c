/**
 * The demo app's own backend: the endpoints its login screen calls, answered in memory like the rest of
 * the app's origin (browser.ts), so a Sign In sends real HTTP requests the app's network capture sees
 * (AppReveal's URLSession capture on iOS) with the typed username and password in their bodies, as a
 * real app's login does. Nothing is kept: each answer is made from the request alone.
 */
import type { Request } from 'playwright-core';

/** The paths the demo backend answers, under the app's origin. */
export const DEMO_API = {
  /** JSON login: `{"username", "password"}` in, `{"user", "token"}` out. */
  login: '/api/login',
  /** OAuth 2 password grant (RFC 6749 §4.3.2): a form body, `grant_type=password&username=…&password=…`. */
  token: '/api/oauth/token',
} as const;

export interface DemoApiReply {
  status: number;
  contentType: string;
  body: string;
}

const json = (status: number, value: unknown): DemoApiReply => ({ status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value) });

/** A session id that says nothing about the password it was made for. */
function sessionToken(): string {
  return `demo-${Math.random().toString(36).slice(2, 12)}`;
}

function jsonBody(request: Request): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(request.postData() ?? '') as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer for a request to `pathname` on the app's origin, or undefined when it is no API path. */
export function demoApiReply(pathname: string, request: Request): DemoApiReply | undefined {
  if (pathname === DEMO_API.login) {
    if (request.method() !== 'POST') return json(405, { error: 'POST only' });
    const body = jsonBody(request);
    const user = typeof body?.['username'] === 'string' ? body['username'] : '';
    const password = typeof body?.['password'] === 'string' ? body['password'] : '';
    if (!user || !password) return json(400, { error: 'username and password are required' });
    return json(200, { user, token: sessionToken() });
  }
  if (pathname === DEMO_API.token) {
    if (request.method() !== 'POST') return json(405, { error: 'POST only' });
    const form = new URLSearchParams(request.postData() ?? '');
    if (form.get('grant_type') !== 'password') return json(400, { error: 'unsupported_grant_type' });
    if (!form.get('username') || !form.get('password')) return json(400, { error: 'invalid_request' });
    return json(200, { access_token: sessionToken(), token_type: 'Bearer', expires_in: 3600 });
  }
  return undefined;
}
