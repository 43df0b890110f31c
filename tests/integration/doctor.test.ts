/**
 * `parallax doctor` against the demo device over its real sockets: healthy, with faults switched on,
 * through AppReveal with a good and a stale token, against a port that is not a runner, and against
 * nothing listening (docs/rules.md#r-qa-15).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { runDoctor } from '@main/cli/doctor';
import type { DoctorCheck } from '@shared/inspect/doctor';

let demo: DemoDeviceHandle;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0 });
}, 60_000);
afterAll(async () => {
  await demo?.close();
});
beforeEach(async () => {
  const res = await fetch(`${demo.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen: 'login', faults: [] }) });
  expect(res.status).toBe(200);
});

async function doctor(...args: string[]): Promise<{ code: number; checks: DoctorCheck[]; text: string; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = { log: (l: string) => stdout.push(l), error: (l: string) => stderr.push(l) };
  const code = await runDoctor([...args, '--json', '--timeout', '3000'], out);
  const json = stdout.length > 0 ? (JSON.parse(stdout.join('\n')) as { checks: DoctorCheck[] }) : { checks: [] };
  const text: string[] = [];
  await runDoctor([...args, '--timeout', '3000'], { log: (l) => text.push(l), error: () => undefined });
  return { code, checks: json.checks, text: text.join('\n'), stderr };
}

const check = (checks: DoctorCheck[], id: string) => checks.find((c) => c.id === id);

async function faults(...names: string[]): Promise<void> {
  const res = await fetch(`${demo.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: names }) });
  expect(res.status, await res.text()).toBe(200);
}

describe('parallax doctor', () => {
  it('R-QA-15: a healthy demo passes every check: port, health, connected push, commands, XCTest, SDK and bridge', async () => {
    const { code, checks } = await doctor('--device', demo.runnerUrl);
    expect(code).toBe(0);
    expect(checks.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'port',
        'health',
        'connected',
        'observe commands',
        'action commands',
        'SDK discovery',
        'bridge relay',
        'runner version',
        'hierarchy',
        'SDK',
        'bridge',
      ]),
    );
    expect(checks.filter((c) => c.status === 'fail' || c.status === 'warn')).toEqual([]);
    expect(check(checks, 'runner version')?.detail).toMatch(/commands/);
    expect(check(checks, 'SDK')?.detail).toContain('dev.parallax.demo');
  });

  it.each([
    ['sdk-absent', 'SDK', 'warn', /embed the AutoMobile SDK/],
    ['bridge-unregistered', 'bridge', 'warn', /register one in the app/],
    ['app-inactive', 'bridge read', 'warn', /bring it to the foreground/],
  ])('R-QA-15: with %s, the %s check warns and says what to do', async (fault, id, status, next) => {
    await faults(fault);
    const { code, checks } = await doctor('--device', demo.runnerUrl);
    expect(code).toBe(0);
    expect(check(checks, id)).toMatchObject({ status, next: expect.stringMatching(next) });
  });

  it('R-QA-15: when XCTest cannot serialize the screen, the hierarchy check fails with the way out, and the exit code says so', async () => {
    await faults('xctest-ax-error');
    const { code, checks, text } = await doctor('--device', demo.runnerUrl);
    expect(code).toBe(1);
    expect(check(checks, 'hierarchy')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/kAXError/),
      next: expect.stringMatching(/SDK observation bridge/),
    });
    expect(text).toMatch(/^FAIL {2}hierarchy/m);
    expect(text).toMatch(/→ XCTest cannot serialize this screen/);
  });

  it('R-QA-15: a runner that answers garbage does not crash the doctor; a check fails and the rest still report', async () => {
    await faults('runner-garbage');
    const { code, checks, stderr } = await doctor('--device', demo.runnerUrl);
    expect(stderr).toEqual([]);
    expect(checks.length).toBeGreaterThan(5);
    expect(code === 0 || checks.some((c) => c.status === 'fail' || c.status === 'warn')).toBe(true);
  });

  it('R-QA-15: an AppReveal app: session URL, port, health, token and what it can show; a stale token fails with the next step', async () => {
    const good = await doctor('--device', demo.appRevealUrl!);
    expect(good.code).toBe(0);
    expect(good.checks.map((c) => [c.id, c.status])).toEqual([
      ['session URL', 'ok'],
      ['port', 'ok'],
      ['health', 'ok'],
      ['token', 'ok'],
      // The demo's iOS flavour lists get_elements, screenshot and get_view_tree: nothing it cannot show.
      ['inspect', 'ok'],
    ]);
    const token = new URL(demo.appRevealUrl!).searchParams.get('appreveal_session_token')!;
    const stale = demo.appRevealUrl!.replace(token, '0'.repeat(64));
    const bad = await doctor('--device', stale);
    expect(bad.code).toBe(1);
    expect(check(bad.checks, 'token')).toMatchObject({ status: 'fail', next: expect.stringMatching(/new token at every launch/) });
    // The token never appears in what doctor prints.
    expect(JSON.stringify(good.checks) + good.text + bad.text).not.toContain(token);
  });

  it('R-QA-15: a port that answers HTTP but is not a runner fails at the connected push', async () => {
    const server: Server = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { code, checks } = await doctor('--device', `ws://127.0.0.1:${port}/ws`);
      expect(code).toBe(1);
      expect(check(checks, 'port')?.status).toBe('ok');
      expect(check(checks, 'health')?.status).toBe('warn');
      expect(check(checks, 'connected')).toMatchObject({ status: 'fail', next: expect.stringMatching(/not a CtrlProxy runner/) });
    } finally {
      server.close();
    }
  });

  it('R-QA-15: nothing listening: the port check fails, says how to start a runner, and nothing else is tried', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const { code, checks, text } = await doctor('--device', `ws://127.0.0.1:${port}/ws`);
    expect(code).toBe(1);
    expect(checks).toEqual([expect.objectContaining({ id: 'port', status: 'fail', next: expect.stringMatching(/From the demo to a real device/) })]);
    expect(text).toMatch(/^FAIL {2}port/m);
  });

  it('R-QA-15: a wrong command line is exit code 2', async () => {
    expect((await doctor('--device', 'ftp://x')).code).toBe(2);
  });
});
