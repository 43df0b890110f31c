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
