/**
 * A failed connection in plain words with the next step (docs/rules.md#r-conn-words): what a socket
 * library says (`connect ECONNREFUSED 127.0.0.1:1`, `Unexpected server response: 404`) means nothing to
 * a QA engineer. The library's own words stay in brackets, for a bug report.
 */

export function plainConnectError(error: { code?: string | undefined; message: string }, url: string): string {
  const where = hostOf(url);
  const { code, message } = error;
  const said = ` (${message})`;
  if (code === 'ECONNREFUSED') return `nothing is listening at ${where}: start the runner (or the demo device) there, or check the port${said}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name in ${where} is not known: check its spelling, or use the IP address${said}`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `${where} does not answer: check that the phone or Mac is on this network and its firewall lets the port through${said}`;
  const status = /Unexpected server response: (\d{3})/.exec(message)?.[1];
  if (status === '404') return `${where} answered, but not at this path (404): a runner URL ends in /ws, as in ws://${where}/ws${said}`;
  if (status === '401' || status === '403')
    return `${where} refused the connection (${status}): the token in the URL is wrong or expired; copy the URL again${said}`;
  if (status !== undefined) return `${where} answered HTTP ${status} instead of opening a WebSocket: is this the runner's port?${said}`;
  if (
    (code !== undefined && /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO)/.test(code)) ||
    /wrong version number|certificate/i.test(message)
  )
    return `the secure connection to ${where} failed: use ws:// for a runner without TLS, or wss:// with a certificate this machine trusts${said}`;
  return message;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * A failed AppReveal connection in plain words with the next step (docs/rules.md#r-conn-words-ar): a
 * closed port, a TLS mismatch, a path that is not the app's, a refused session token, a port that is not
 * an AppReveal app, silence. The client's own words stay in brackets. `code` and `details.status` are an
 * AppRevealError's (src-main/appreveal/client.ts); anything else keeps its message.
 */
export function plainAppRevealError(error: { code?: string | undefined; message: string; details?: { status?: number | undefined } | undefined }, url: string): string {
  const where = hostOf(url);
  const { code, message } = error;
  const status = error.details?.status ?? Number(/\bHTTP (\d{3})\b/.exec(message)?.[1] ?? NaN);
  const said = ` (${message})`;
  if (/ECONNREFUSED/.test(message))
    return `nothing is listening at ${where}: start the app (a Debug build with AppReveal) or check the port in its Session URL; an app that restarted may listen on another port${said}`;
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return `the host name in ${where} is not known: check its spelling, or use the IP address the app printed${said}`;
  if (/ERR_SSL|ERR_TLS|EPROTO|wrong version number|certificate|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(message))
    return `the secure connection to ${where} failed: an AppReveal Session URL is http://, unless the app serves TLS with a certificate this machine trusts${said}`;
  if (/not HTTP/.test(message)) return `${where} answered something that is not plain HTTP: is this the app's port, and is the URL http:// (not https://)?${said}`;
  if (code === 'unauthorized' || status === 401)
    return `${where} refused the session token: the app restarted with a new one, or the URL lost part of it; paste the "Session URL" line from the app's log again${said}`;
  if (code === 'forbidden_origin' || status === 403) return `${where} refused the request's origin (403): it accepts loopback origins only${said}`;
  if (status === 404) return `${where} answered, but has no AppReveal endpoint at this path (404): paste the Session URL exactly as the app printed it${said}`;
  if (code === 'timeout' || /ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|no answer/.test(message))
    return `${where} does not answer: check that the app is running in the foreground, the phone is on this network, and its firewall lets the port through${said}`;
  if (code === 'bad_reply' && /\/health/.test(message)) return `${where} is not an AppReveal app (its /health is not AppReveal's): check the port in the Session URL${said}`;
  return message;
}
