import { describe, expect, it } from 'vitest';
import type { DeviceSummary } from '@shared/protocol/device';
import { pairPhones, phoneTitle, removableConnections } from '@shared/inspect/phones';

const SCREEN = { width: 402, height: 874 };
const UDID = '5E0F1C2A-7B3D-4E8F-9A10-1B2C3D4E5F60';

let next = 1;
function device(over: Partial<DeviceSummary> & Pick<DeviceSummary, 'kind'>): DeviceSummary {
  const id = `device-${next++}`;
  return { id, name: over.url ?? id, url: `ws://127.0.0.1:${8764 + next}/ws`, state: 'connected', supportedCommands: [], ...over };
}

function runner(over: Partial<DeviceSummary> = {}): DeviceSummary {
  return device({ kind: 'runner', bundleId: 'dev.parallax.demo', appName: 'Parallax Demo', phone: { udid: UDID, screen: SCREEN }, ...over });
}

function app(over: Partial<DeviceSummary> = {}): DeviceSummary {
  return device({
    kind: 'appreveal',
    url: 'http://127.0.0.1:9400/',
    bundleId: 'dev.parallax.demo',
    phone: { deviceName: 'Ana’s iPhone', deviceModel: 'iPhone', systemVersion: '26.5', screen: SCREEN },
    ...over,
  });
}

describe('pairPhones (R-PHONE-01: one entry per phone)', () => {
  it('R-PHONE-01: a runner and the AppReveal app on its screen are one phone, the runner first', () => {
    const a = app();
    const r = runner();
    const phones = pairPhones([a, r]);
    expect(phones).toHaveLength(1);
    expect(phones[0]!.connections.map((d) => d.kind)).toEqual(['runner', 'appreveal']);
  });

  it('R-PHONE-01: the SDK bridge reached through the runner is shown on the phone, not as another entry', () => {
    const r = runner({ phone: { udid: UDID, screen: SCREEN, sdkBridge: true } });
    const phones = pairPhones([r, app()]);
    expect(phones).toHaveLength(1);
    expect(phones[0]!.sdkBridge).toBe(true);
    expect(pairPhones([runner({ phone: { udid: UDID, screen: SCREEN, sdkBridge: false } })])[0]!.sdkBridge).toBe(false);
  });

  it('R-PHONE-01: one runner reached at two addresses (same UDID) is one phone; two UDIDs are two phones', () => {
    expect(pairPhones([runner(), runner()])).toHaveLength(1);
    expect(pairPhones([runner(), runner({ phone: { udid: 'OTHER-UDID', screen: SCREEN } })])).toHaveLength(2);
  });

  it('R-PHONE-01: an app that fits two phones (same app, same screen size) joins neither', () => {
    const phones = pairPhones([runner(), runner({ phone: { udid: 'SECOND-UDID', screen: SCREEN } }), app()]);
    expect(phones).toHaveLength(3);
    expect(phones.map((p) => p.connections.length)).toEqual([1, 1, 1]);
  });

  it('R-PHONE-01: another app, another screen size, or a fact not yet said keeps the app on its own', () => {
    expect(pairPhones([runner(), app({ bundleId: 'com.example.other' })])).toHaveLength(2);
    expect(pairPhones([runner(), app({ phone: { deviceName: 'iPad', screen: { width: 820, height: 1180 } } })])).toHaveLength(2);
    expect(pairPhones([runner({ phone: { udid: UDID } }), app()])).toHaveLength(2);
    expect(pairPhones([runner({ bundleId: undefined }), app()])).toHaveLength(2);
    expect(pairPhones([runner(), app({ phone: { deviceName: 'x' } })])).toHaveLength(2);
  });

  it('R-PHONE-01: a recorded session never joins a phone, and two AppReveal apps are not joined to each other', () => {
    const replay = device({ kind: 'replay', bundleId: 'dev.parallax.demo', phone: { screen: SCREEN } });
    expect(pairPhones([replay, app()])).toHaveLength(2);
    expect(pairPhones([app(), app({ url: 'http://127.0.0.1:9401/' })])).toHaveLength(2);
  });

  it('R-PHONE-01: runners without a UDID stay apart, and phones keep the order of their first connection', () => {
    const a = runner({ phone: { screen: SCREEN }, bundleId: 'a' });
    const b = runner({ phone: { screen: SCREEN }, bundleId: 'b' });
    const c = app({ bundleId: 'b' });
    const phones = pairPhones([a, c, b]);
    expect(phones.map((p) => p.connections.map((d) => d.id))).toEqual([[a.id], [b.id, c.id]]);
    expect(phones[1]!.key).toBe(b.id);
  });

  it('R-PHONE-01: a phone is as alive as its best connection', () => {
    const phones = pairPhones([runner({ state: 'disconnected' }), app({ state: 'connected' })]);
    expect(phones[0]!.state).toBe('connected');
    expect(pairPhones([runner({ state: 'disconnected' })])[0]!.state).toBe('disconnected');
  });
});

describe('phone names (R-PHONE-02: devices named as their users know them)', () => {
  it('R-PHONE-02: the app’s UIDevice name is the title, model and system the detail, the app its own line', () => {
    const [phone] = pairPhones([runner(), app()]);
    expect(phone!.title).toBe('Ana’s iPhone');
    expect(phone!.detail).toBe('iPhone · iOS 26.5 · UDID 5E0F1C2A…');
    expect(phone!.app).toBe('Parallax Demo · dev.parallax.demo');
  });

  it('R-PHONE-02: a runner alone is titled by the name it was given, else its UDID, never by the app on screen', () => {
    expect(phoneTitle([runner({ name: 'Demo iPhone 17', named: true })])).toBe('Demo iPhone 17');
    expect(phoneTitle([runner()])).toBe('iOS device 5E0F1C2A…');
    expect(phoneTitle([runner()])).not.toContain('Parallax Demo');
  });

  it('R-PHONE-02: with nothing said, the title says what and where it is', () => {
    expect(phoneTitle([runner({ phone: undefined, url: 'ws://10.0.0.7:8765/ws' })])).toBe('iOS runner at 10.0.0.7:8765');
    expect(phoneTitle([app({ phone: undefined, url: 'http://127.0.0.1:9400/' })])).toBe('AppReveal app at 127.0.0.1:9400');
  });

  it('R-PHONE-02: a short UDID is shown whole', () => {
    expect(phoneTitle([runner({ phone: { udid: 'ABC123' } })])).toBe('iOS device ABC123');
  });
});

describe('removable entries (R-PHONE-03)', () => {
  it('R-PHONE-03: only dead connections are removed with their phone; live ones are left to their own disconnect', () => {
    const dead = runner({ state: 'disconnected' });
    const live = app();
    const [phone] = pairPhones([dead, live]);
    expect(removableConnections(phone!).map((d) => d.id)).toEqual([dead.id]);
    expect(removableConnections(pairPhones([app({ state: 'connecting' })])[0]!)).toEqual([]);
  });
});
