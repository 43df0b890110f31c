/**
 * Two frames' accessibility findings compared through the host's API (docs/rules.md#r-a11y-21): two demo
 * devices over their real ports, one on the `access` screen (its planted problems: resources/demo-app/
 * index.html data-planted), one on `login`; `a11y.compare` audits each device's current frame in the host
 * and names what is new, gone or unchanged. A trace side is read only from a trace the page may open.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import type { ApiOutput } from '@shared/api/api';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo({ demo: { appReveal: false, screen: 'access' } });
let login: DemoDeviceHandle;
let accessId: string;
let loginId: string;

beforeAll(async () => {
  login = await startDemoDevice({ port: 0, appReveal: false, screen: 'login' });
  const connect = async (url: string) => {
    const { id } = await host.call<{ id: string }>('devices.connect', { url });
    await host.call('device.observe', { deviceId: id });
    return id;
  };
  accessId = await connect(host.demo.runnerUrl);
  loginId = await connect(login.runnerUrl);
}, 120_000);
afterAll(async () => {
  await login?.close();
});

function plantedRules(): string[] {
  const html = readFileSync(join(import.meta.dirname, '../../resources/demo-app/index.html'), 'utf8');
  const section = html.slice(html.indexOf('id="screen-access"'), html.indexOf('<!-- The tab bar'));
  return [...new Set([...section.matchAll(/data-planted="([^"]+)"/g)].map((m) => m[1]!))].sort();
}

type Compared = ApiOutput<'a11y.compare'>;
const rulesOf = (list: Compared['diff']['new']) => new Set(list.map((f) => f.rule));

describe('R-A11Y-21: findings of two devices compared', () => {
  it('the same device against itself: all unchanged, none new or gone', async () => {
    const same = await host.call<Compared>('a11y.compare', {
      recorded: { from: 'device', deviceId: accessId },
      compared: { from: 'device', deviceId: accessId },
    });
    expect(same.diff.new).toEqual([]);
    expect(same.diff.gone).toEqual([]);
    expect(same.diff.unchanged.length).toBe(same.compared.summary.total);
    expect(same.recorded.receivedAt).not.toBeNull();
  });

  it('access against login: every planted problem is gone; login against access: every one is new, each listed from its own side', async () => {
    const planted = plantedRules();
    const fixed = await host.call<Compared>('a11y.compare', {
      recorded: { from: 'device', deviceId: accessId },
      compared: { from: 'device', deviceId: loginId },
    });
    for (const rule of planted) expect(rulesOf(fixed.diff.gone), rule).toContain(rule);
    expect(fixed.diff.gone.find((f) => f.fingerprint === 'R-A11Y-07|access.info')?.element.id).toBe('access.info');
    const regressed = await host.call<Compared>('a11y.compare', {
      recorded: { from: 'device', deviceId: loginId },
      compared: { from: 'device', deviceId: accessId },
    });
    for (const rule of planted) expect(rulesOf(regressed.diff.new), rule).toContain(rule);
    expect(regressed.diff.new.map((f) => f.fingerprint).sort()).toEqual(fixed.diff.gone.map((f) => f.fingerprint).sort());
    expect(regressed.diff.unchanged.map((f) => f.fingerprint).sort()).toEqual(fixed.diff.unchanged.map((f) => f.fingerprint).sort());
  });

  it('a trace side the page may not open is refused, naming it; an unknown device is not found', async () => {
    const ref = `sha256:${'0'.repeat(64)}`;
    const forbidden = await host.handle('a11y.compare', {
      recorded: { from: 'trace', path: '/etc/passwd', observationRef: ref },
      compared: { from: 'device', deviceId: accessId },
    });
    expect(forbidden).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
    const unknown = await host.handle('a11y.compare', { recorded: { from: 'device', deviceId: 'nope' }, compared: { from: 'device', deviceId: accessId } });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const bad = await host.handle('trace.audit', { path: '/tmp/x.parallax-trace', observationRef: 'not-a-ref' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });
});
