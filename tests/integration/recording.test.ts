/**
 * Recording through the API, against the demo device over its real sockets: the actions and
 * observations of a session land in one .parallax-trace file, and no secret does.
 */
import { describe, expect, it } from 'vitest';
import { openTraceFile } from '@main/trace/index';
import { useHostOverDemo } from '../support/host-over-demo';

const HOST_TOKEN = 'f00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeed';
const PASSWORD = 'correct-horse-battery-staple';
const host = useHostOverDemo({ tokens: [HOST_TOKEN] });
const call = (method: string, params: unknown) => host.call(method, params);

describe('recording a session', () => {
  it('records every action and observation, then packs one trace file that reopens offline', async () => {
    const runner = host.services.manager.connect(host.demo.runnerUrl, { kind: 'demo', name: 'Demo' });
    const appReveal = host.services.manager.connect(host.demo.appRevealUrl ?? '', { name: 'Demo (AppReveal)' });
    await host.services.manager.connectionOf(runner.id).waitUntilConnected(10_000);
    await call('device.observe', { deviceId: runner.id });

    const started = await call('recording.start', { deviceId: runner.id });
    expect(started).toMatchObject({ recording: true, steps: 0 });
    await call('device.observe', { deviceId: runner.id });
    await call('device.act', { deviceId: runner.id, action: { action: 'tap', target: { id: 'login.submit' } } });
    await call('device.act', { deviceId: runner.id, action: { action: 'doubleTap', target: { id: 'login.submit' } } });
    await call('device.act', {
      deviceId: runner.id,
      action: { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'replace', text: `token ${HOST_TOKEN}` }] },
    });
    await call('device.act', {
      deviceId: runner.id,
      action: { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: PASSWORD }] },
    });
    const stopped = await call('recording.stop', {});
    expect(stopped).toMatchObject({ recording: false, steps: 4 });
    const file = stopped.lastTrace as string;
    expect(file).toMatch(/\.parallax-trace$/);

    const opened = await openTraceFile(file);
    expect(opened.manifest.device).toMatchObject({ name: 'Demo', kind: 'demo' });
    const steps = opened.timeline.filter((step) => step.after);
    expect(steps).toHaveLength(4);
    const results = steps.map((step) => step.after?.result);
    expect(results[0]).toMatchObject({ success: true, backend: 'sdk' });
    expect(results[1]).toMatchObject({ backend: 'xctest', fallbackReason: 'unsupported' });
    // Each step kept its before and after pictures, stored once each by content address.
    const before = steps[0]?.before;
    expect(before?.screenshotRef).toMatch(/^sha256:/);
    expect((await opened.resource(before?.screenshotRef as string)).subarray(1, 4).toString()).toBe('PNG');

    // No secret anywhere in what the trace holds: its manifest, its events, its observations. (The file
    // itself is compressed, so its raw bytes prove nothing: read everything back decompressed.)
    const sessionToken = new URL(host.demo.appRevealUrl ?? '').searchParams.get('appreveal_session_token') ?? '';
    expect(sessionToken.length).toBeGreaterThan(8);
    const refs = opened.events.flatMap((event) => [(event as { observationRef?: string }).observationRef].filter(Boolean) as string[]);
    expect(refs.length).toBeGreaterThan(0);
    const contents = [
      JSON.stringify(opened.manifest),
      JSON.stringify(opened.events),
      ...(await Promise.all(refs.map(async (ref) => (await opened.resource(ref)).toString('utf8')))),
    ].join('\n');
    expect(contents).toContain('login.password');
    for (const secret of [HOST_TOKEN, sessionToken, PASSWORD]) expect(contents).not.toContain(secret);
    expect(appReveal.url).not.toContain(sessionToken);
  });

  it('refuses a second start and a stop with nothing recorded', async () => {
    const [device] = host.services.manager.list();
    await call('recording.start', { deviceId: device?.id });
    await expect(call('recording.start', { deviceId: device?.id })).rejects.toThrow(/already recording \S+; stop it first/);
    await call('recording.stop', {});
    await expect(call('recording.stop', {})).rejects.toThrow(/nothing is being recorded/);
  });
});
