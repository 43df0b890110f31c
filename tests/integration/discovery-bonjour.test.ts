/**
 * Bonjour discovery of `_appreveal._tcp`. Multicast on the plain machine would leave through the real
 * interface, so the real advertise-and-browse run happens in a child process inside a private network
 * namespace (README.md, `PARALLAX_MDNS`). Nothing is skipped: without `unshare` or `ip` the test fails and says what
 * to install.
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveServiceHost } from '@main/discovery/bonjour';
import { DiscoveredDeviceSchema } from '@shared/protocol/appreveal';
import { FAKE_BUNDLE_ID } from './appreveal-fake-app';

const ROOT = join(__dirname, '..', '..');
const CHILD = join(__dirname, 'discovery-bonjour-child.ts');

function which(tool: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function runInNamespace(timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" --import tsx "${CHILD}"`], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the namespace child did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('Bonjour discovery in a private network namespace', () => {
  it('R-AR-17, R-AR-26: finds an advertised AppReveal app with its TXT at the address it listens on, connects, and sees it leave', async () => {
    const missing = ['unshare', 'ip'].filter((tool) => which(tool) === undefined);
    if (missing.length > 0) {
      throw new Error(
        `Bonjour discovery is tested inside a private network namespace and needs ${missing.join(' and ')}: ` +
          `install util-linux (unshare) and iproute2 (ip), e.g. \`apt-get install -y util-linux iproute2\`; the test must run as root.`,
      );
    }
    const { code, stdout, stderr } = await runInNamespace(45_000);
    if (code !== 0) {
      throw new Error(`the namespace child failed (exit ${code}). unshare -n needs root (or CAP_SYS_ADMIN).\nstdout: ${stdout}\nstderr: ${stderr}`);
    }
    const lines = stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.event)).toEqual(['found', 'connected', 'once', 'gone']);

    const found = lines[0] as { device: unknown; port: number; advertised: string[]; addresses: string[] };
    // R-AR-26: a server on loopback advertises loopback, and nothing else, and that is what a browser receives.
    expect(found.advertised).toEqual(['127.0.0.1']);
    expect(found.addresses).toEqual(['127.0.0.1']);
    const device = DiscoveredDeviceSchema.parse(found.device);
    expect(device).toMatchObject({
      kind: 'appreveal',
      name: 'AppReveal-dev-parallax-fake',
      bundleId: FAKE_BUNDLE_ID,
      url: `http://127.0.0.1:${found.port}/`,
      state: 'available',
      sources: ['bonjour'],
      auth: 'session-token',
      txt: { bundleId: FAKE_BUNDLE_ID, version: '2.3.4', transport: 'streamable-http', auth: 'session-token' },
    });
    expect(stdout).not.toContain('appreveal_session_token');
    // Advertiser, browser and client print nothing of their own (stdout held only the JSON lines above).
    expect(stderr).toBe('');
    expect(lines[1]).toMatchObject({ screenKey: 'login', tools: 16 });
    expect(lines[2]).toMatchObject({ found: ['available'], warnings: [] });
    expect(lines[3]).toMatchObject({ warnings: [] });
  }, 60_000);
});

describe('where a Bonjour service is reached', () => {
  it.each([
    ['a remote A record', { addresses: ['192.0.2.10'], host: 'mac.local' }, '192.0.2.10'],
    ['IPv4 before IPv6', { addresses: ['2001:db8::5', '192.0.2.11'], host: 'mac.local' }, '192.0.2.11'],
    ['a routable IPv6 when there is no IPv4', { addresses: ['fe80::1', '2001:db8::5'], host: 'mac.local' }, '2001:db8::5'],
    [
      'no address records: the sender of the answer',
      { addresses: [], host: 'mac.local', referer: { address: '192.0.2.20', family: 'IPv4' as const, port: 5353, size: 1 } },
      '192.0.2.20',
    ],
    ['a loopback sender', { addresses: [], host: 'box', referer: { address: '127.0.0.1', family: 'IPv4' as const, port: 5353, size: 1 } }, '127.0.0.1'],
    ['an IP literal SRV target', { addresses: [], host: '192.0.2.30' }, '192.0.2.30'],
    ['nothing usable: loopback', { addresses: [], host: 'unresolvable.local' }, '127.0.0.1'],
  ])('%s', (_name, service, expected) => {
    expect(resolveServiceHost(service)).toBe(expected);
  });
});
