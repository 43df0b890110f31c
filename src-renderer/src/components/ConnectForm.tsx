import './ConnectForm.css';
/**
 * Connect a device: paste a runner URL (ws://HOST:PORT/ws) or an AppReveal session URL
 * (http://HOST:PORT/?appreveal_session_token=…), or type an AppReveal app's host, port and token.
 *
 * The session token is a secret: a pasted session URL is masked as soon as it holds one, the token field
 * is a password field, both are emptied on submit, and no message repeats them (the parse errors of
 * src-shared/protocol/appreveal.ts never contain the input).
 */
import { useState, type FormEvent } from 'react';
import { apiMethods } from '@shared/api/api';
import { appRevealSessionFromParts, SESSION_TOKEN_PARAM, stripSessionToken } from '@shared/protocol/appreveal';
import { useConnectDevice, useRememberDevice } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';

type Form = 'url' | 'parts';

/** The session URL for a base URL and a token (none: an app started with auth disabled). */
export function sessionUrl(baseUrl: string, token: string | undefined): string {
  if (!token) return baseUrl;
  const url = new URL(baseUrl);
  url.searchParams.set(SESSION_TOKEN_PARAM, token);
  return url.href;
}

/** Hides the token of anything that looks like a session URL (for messages built from user input). */
function scrub(message: string, secret: string | undefined): string {
  return secret ? message.split(secret).join('•••') : message;
}

export function ConnectForm() {
  const [form, setForm] = useState<Form>('url');
  const [url, setUrl] = useState('');
  const [host, setHost] = useState('127.0.0.1');
  const [port, setPort] = useState('');
  const [token, setToken] = useState('');
  const [remember, setRemember] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const connect = useConnectDevice();
  const rememberDevice = useRememberDevice();
  const selectDevice = useInspector((s) => s.selectDevice);

  const hasToken = url.includes(SESSION_TOKEN_PARAM);

  const go = (target: string, tokenInUse: string | undefined) => {
    const input = { url: target };
    const checked = apiMethods['devices.connect'].input.safeParse(input);
    if (!checked.success) {
      setInvalid(scrub(checked.error.issues[0]?.message ?? 'not a device URL', tokenInUse));
      return;
    }
    setInvalid(null);
    setSecret(tokenInUse);
    // The secret leaves the form now: nothing shows it again.
    setUrl('');
    setToken('');
    connect.mutate(input, {
      onSuccess: (device) => {
        selectDevice(device.id);
        if (remember) rememberDevice.mutate({ url: stripSessionToken(target) || device.url, name: device.name });
      },
    });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form === 'url') {
      const text = url.trim();
      let tokenInUse: string | undefined;
      try {
        tokenInUse = new URL(/^[a-z]+:\/\//i.test(text) ? text : `http://${text}`).searchParams.get(SESSION_TOKEN_PARAM) ?? undefined;
      } catch {
        tokenInUse = undefined;
      }
      // A bare host:port (no scheme) is an AppReveal endpoint: http.
      go(/^[a-z]+:\/\//i.test(text) ? text : `http://${text}`, tokenInUse);
      return;
    }
    try {
      const session = appRevealSessionFromParts(host, port, token);
      go(sessionUrl(session.baseUrl, session.token), session.token);
    } catch (error) {
      setInvalid(scrub(errorMessage(error), token.trim() || undefined));
    }
  };

  const error = invalid ?? (connect.error ? scrub(errorMessage(connect.error), secret) : null);
  const busy = connect.isPending;
  const ready = form === 'url' ? url.trim() !== '' : host.trim() !== '' && port.trim() !== '';

  return (
    <form className="connect-form" data-testid="connect-form" data-form={form} onSubmit={submit} autoComplete="off">
      <div className="connect-head">
        <span className="section-title">Connect a device</span>
        <span className="segmented small" role="tablist">
          <button
            type="button"
            role="tab"
            aria-selected={form === 'url'}
            className={form === 'url' ? 'on' : ''}
            data-testid="connect-form-url"
            onClick={() => setForm('url')}
          >
            URL
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={form === 'parts'}
            className={form === 'parts' ? 'on' : ''}
            data-testid="connect-form-parts"
            onClick={() => setForm('parts')}
            title="An AppReveal app by host, port and session token"
          >
            Host · port · token
          </button>
        </span>
      </div>
      {form === 'url' ? (
        <div className="connect-row">
          <input
            id="connect-url"
            data-testid="connect-url"
            // A session URL holds its token: masked as soon as one is pasted.
            type={hasToken ? 'password' : 'text'}
            spellCheck={false}
            autoComplete="off"
            aria-label="Runner URL or AppReveal session URL"
            placeholder="ws://127.0.0.1:8765/ws or http://…/?appreveal_session_token=…"
            value={url}
            onChange={(e) => {
              setUrl(e.target.value);
              setInvalid(null);
            }}
          />
          <button data-testid="connect-submit" type="submit" disabled={busy || !ready}>
            {busy ? '…' : 'Connect'}
          </button>
        </div>
      ) : (
        <div className="connect-parts">
          <input
            data-testid="connect-host"
            type="text"
            spellCheck={false}
            aria-label="Host"
            placeholder="host"
            value={host}
            onChange={(e) => {
              setHost(e.target.value);
              setInvalid(null);
            }}
          />
          <input
            data-testid="connect-port"
            type="text"
            inputMode="numeric"
            aria-label="Port"
            placeholder="port"
            value={port}
            onChange={(e) => {
              setPort(e.target.value);
              setInvalid(null);
            }}
          />
          <input
            data-testid="connect-token"
            type="password"
            autoComplete="new-password"
            aria-label="Session token"
            placeholder="session token (if the app asks for one)"
            value={token}
            onChange={(e) => {
              setToken(e.target.value);
              setInvalid(null);
            }}
          />
          <button data-testid="connect-submit" type="submit" disabled={busy || !ready}>
            {busy ? '…' : 'Connect'}
          </button>
        </div>
      )}
      <label className="connect-remember" title="Keep this device in the Discovered list between starts (never its token)">
        <input type="checkbox" data-testid="connect-remember" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
        Remember this device
      </label>
      {hasToken && form === 'url' && <div className="connect-note">Session URL: the token is hidden and is never shown again.</div>}
      {error && (
        <div className="form-error" data-testid="connect-error" role="alert">
          {error}
        </div>
      )}
    </form>
  );
}
