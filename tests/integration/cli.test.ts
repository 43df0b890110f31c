import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'parallax.mjs');
const GOLDEN = join(ROOT, 'resources', 'recordings', 'settings-tap-general');

/** Runs the real command; async, so replay devices in this process keep answering meanwhile. */
function parallax(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, timeout: 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const devices: ReplayDevice[] = [];
afterAll(async () => {
  for (const device of devices) await device.close();
});

describe('parallax CLI', () => {
  it('observe --json prints the observation of the recorded screen', async () => {
    const device = await startReplayDevice(GOLDEN);
    devices.push(device);
    const { code, stdout, stderr } = await parallax('observe', '--device', device.url, '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const observation = JSON.parse(stdout) as { viewHierarchy: { packageName: string; screenWidth: number; hierarchy: { className: string } } };
    const hierarchy = observation.viewHierarchy;
    expect(hierarchy.packageName).toBe('com.apple.Preferences');
    expect(hierarchy.screenWidth).toBe(402);
    expect(hierarchy.hierarchy.className).toBe('XCUIApplication');
  });

  it('observe without --json prints a readable tree', async () => {
    const device = await startReplayDevice(GOLDEN);
    devices.push(device);
    const { code, stdout } = await parallax('observe', '--device', device.url);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^com\.apple\.Preferences 402x874 pt quality=healthy/);
    expect(stdout).toContain('      Button "General" · com.apple.settings.general (x 16, y 380, 370 × 52 pt)\n');
  });

  it('replay-device prints its ws URL and serves the recording there', async () => {
    const child = spawn(process.execPath, [BIN, 'replay-device', GOLDEN, '--port', '0'], { cwd: ROOT });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
      const health = await fetch(url.replace('ws://', 'http://').replace('/ws', '/health'));
      expect(health.status).toBe(200);
      const { code, stdout } = await parallax('observe', '--device', url, '--json');
      expect(code).toBe(0);
      expect(JSON.parse(stdout).viewHierarchy.packageName).toBe('com.apple.Preferences');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('devices --json lists a runner listening in the probed port range 8765-8864', async () => {
    let device: ReplayDevice | undefined;
    for (let port = 8840 + Math.floor(Math.random() * 20); !device && port <= 8864; port++) {
      device = await startReplayDevice(GOLDEN, { port }).catch(() => undefined);
    }
    if (!device) throw new Error('no free port in 8840-8864');
    devices.push(device);
    const port = new URL(device.url).port;
    const { code, stdout } = await parallax('devices', '--json', '--wait', '0');
    expect(code).toBe(0);
    const found = JSON.parse(stdout) as Array<{ kind: string; url: string; state: string }>;
    const mine = found.find((d) => d.url.includes(`:${port}`));
    expect(mine).toMatchObject({ kind: 'runner', state: 'available' });
  });

  it('serve without any usable browser says why in one line and still serves the recorded session', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env: { ...process.env, PARALLAX_BROWSER: '/nonexistent/chrome' } });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /Parallax web host: (\S+)/.exec(output);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
      });
      const lines = output.trim().split('\n');
      expect(lines[0]).toMatch(/^Parallax: demo device unavailable \(.*PARALLAX_BROWSER.*\); showing the recorded Settings session instead$/);
      expect((await fetch(url)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it.each([
    [['observe'], 2, /observe needs --device/],
    [['observe', '--device', 'ftp://x'], 2, /must be a ws:\/\/ runner URL or an http:\/\/ AppReveal session URL/],
    [['observe', '--device', 'http://127.0.0.1:1/?appreveal_session_token=s3cr3tt0k3n', '--timeout', '500'], 1, /AppReveal at 127\.0\.0\.1:1 is not connected/],
    [['observe', '--device', 'ws://127.0.0.1:1/ws', '--timeout', '500'], 1, /not connected.*ECONNREFUSED/],
    [['replay-device', '/nonexistent/folder'], 1, /cannot read the folder/],
    [['replay-device'], 2, /exactly one recorded session FOLDER/],
    [['serve', '--port', 'x'], 2, /--port must be/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
    [['observe', '--bogus'], 2, /Unknown option '--bogus'/],
    [['serve', '--demo-devices', '0'], 2, /--demo-devices must be a whole number from 1 to 16, not "0"/],
    [['start', '--demo-devices', 'many'], 2, /--demo-devices must be a whole number from 1 to 16, not "many"/],
    // R-SHOW-02: over the bound is a usage error, not a silent fall back to the recorded session.
    [['serve', '--demo-devices', '17'], 2, /--demo-devices must be a whole number from 1 to 16, not "17"/],
    [['start', '--demo-devices', '17'], 2, /--demo-devices must be a whole number from 1 to 16, not "17"/],
    [['demo-device', '--count', '1.5'], 2, /--count must be a whole number from 1, not "1.5"/],
    [['demo-device', '--count', '2', '--fault', 'sdk-absent'], 2, /--count takes only --screen and --browser beside it, not --fault/],
  ])('parallax %j fails in one clear line (exit %i)', async (args, exitCode, message) => {
    const { code, stderr, stdout } = await parallax(...(args as string[]));
    expect(code).toBe(exitCode);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^parallax: /);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('s3cr3tt0k3n');
  });

  it('a recording that is not a runner session is refused with the file named', async () => {
    const { code, stderr } = await parallax('replay-device', join(ROOT, 'src-shared'));
    expect(code).toBe(1);
    expect(stderr).toMatch(/holds no recorded runner messages/);
  });
});
