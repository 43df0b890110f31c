/**
 * The device list's entries: one per phone, its connections under it (docs/rules.md#r-phone-01..03).
 * A phone reached through its runner, its AppReveal app and (through the runner) its SDK bridge is one
 * phone to the person holding it, so the list shows it once, named as its user knows it.
 *
 * Nothing any peer sends names "the phone" in common: CtrlProxy's `/health` gives the UDID
 * (`{deviceId, port, status}`, docs/protocol.md#p-runner-transport), AppReveal's launch_context gives
 * `UIDevice.current.name` and `.model` (iOS/Sources/AppReveal/MCPServer/MCPTools.swift, launch_context)
 * and no UDID. So connections are one phone only on what both can say, and only when that points at
 * exactly one phone: a guess that could join two phones' connections is not made.
 */
import { DEVICE_KIND_LABELS, type DeviceSummary } from '@shared/protocol/device';

export interface Phone {
  /** Stable while its first connection stays: that connection's id. */
  key: string;
  /** How its user knows it (docs/rules.md#r-phone-02). */
  title: string;
  /** Model, system and UDID, as far as they are known: `iPhone · iOS 26.5 · UDID 1A2B3C4D…`. */
  detail: string;
  /** The app on screen: `Parallax Demo · dev.parallax.demo`; empty when none said. */
  app: string;
  /** Runner first, then AppReveal apps, then the rest, each in the list's order. */
  connections: DeviceSummary[];
  /** The runner's last read merged the app's SDK bridge (a connection through the runner, not its own). */
  sdkBridge: boolean;
  /** The best of its connections' states. */
  state: DeviceSummary['state'];
}

const RUNNER_KINDS: ReadonlySet<DeviceSummary['kind']> = new Set(['runner', 'demo']);
const KIND_ORDER: Readonly<Record<DeviceSummary['kind'], number>> = { demo: 0, runner: 0, appreveal: 1, replay: 2 };
const STATE_ORDER: Readonly<Record<DeviceSummary['state'], number>> = { connected: 0, connecting: 1, disconnected: 2 };

/**
 * The phones behind a device list (R-PHONE-01): runners with the same UDID are one phone (the same
 * runner reached at two addresses), runners with different UDIDs never are; an AppReveal app joins the
 * one runner phone that shows its app (bundle id) on a screen of its size in points, and stays on its
 * own when no phone or more than one fits, or when either side has not said. A recorded session is
 * always its own. The order is the list's: a phone stands where its first connection stood.
 */
export function pairPhones(devices: readonly DeviceSummary[]): Phone[] {
  const groups: DeviceSummary[][] = [];
  const byUdid = new Map<string, DeviceSummary[]>();
  for (const device of devices) {
    const udid = RUNNER_KINDS.has(device.kind) ? device.phone?.udid : undefined;
    const known = udid !== undefined ? byUdid.get(udid) : undefined;
    if (known) {
      known.push(device);
      continue;
    }
    const group = [device];
    if (udid !== undefined) byUdid.set(udid, group);
    if (device.kind !== 'appreveal') groups.push(group);
  }
  const runnerGroups = [...groups];
  for (const device of devices) {
    if (device.kind !== 'appreveal') continue;
    const fits = runnerGroups.filter((group) => group.some((runner) => RUNNER_KINDS.has(runner.kind) && sameAppOnSameScreen(runner, device)));
    if (fits.length === 1) fits[0]!.push(device);
    else groups.push([device]);
  }
  // Each phone where its first connection stood in the list.
  const position = new Map(devices.map((device, index) => [device.id, index]));
  const first = (group: DeviceSummary[]) => Math.min(...group.map((d) => position.get(d.id) ?? 0));
  return groups.sort((a, b) => first(a) - first(b)).map(phoneOf);
}

function sameAppOnSameScreen(runner: DeviceSummary, app: DeviceSummary): boolean {
  const a = runner.phone?.screen;
  const b = app.phone?.screen;
  if (runner.bundleId === undefined || app.bundleId === undefined || !a || !b) return false;
  return runner.bundleId === app.bundleId && Math.round(a.width) === Math.round(b.width) && Math.round(a.height) === Math.round(b.height);
}

function phoneOf(group: DeviceSummary[]): Phone {
  const position = new Map(group.map((device, index) => [device.id, index]));
  const connections = [...group].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || position.get(a.id)! - position.get(b.id)!);
  const state = connections.map((d) => d.state).sort((a, b) => STATE_ORDER[a] - STATE_ORDER[b])[0] ?? 'disconnected';
  return {
    key: group[0]!.id,
    title: phoneTitle(connections),
    detail: phoneDetail(connections),
    app: appLine(connections),
    connections,
    sdkBridge: connections.some((d) => RUNNER_KINDS.has(d.kind) && d.phone?.sdkBridge === true),
    state,
  };
}

function fact(connections: readonly DeviceSummary[], key: 'udid' | 'deviceName' | 'deviceModel' | 'systemVersion'): string | undefined {
  for (const device of connections) {
    const value = device.phone?.[key]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * A phone's title (R-PHONE-02): the name its owner gave it (`UIDevice.name`, as its app reports it),
 * else the name the host, discovery or the user gave the connection, else its UDID, else where it is.
 * The app on screen is never the title: every runner showing the demo is not "Parallax Demo".
 */
export function phoneTitle(connections: readonly DeviceSummary[]): string {
  const deviceName = fact(connections, 'deviceName');
  if (deviceName) return deviceName;
  const named = connections.find((d) => d.named === true && d.name.trim() !== '');
  if (named) return named.name.trim();
  const udid = fact(connections, 'udid');
  if (udid) return `iOS device ${shortUdid(udid)}`;
  const first = connections[0];
  return first ? `${DEVICE_KIND_LABELS[first.kind]} at ${hostOf(first.url)}` : 'Device';
}

function phoneDetail(connections: readonly DeviceSummary[]): string {
  const model = fact(connections, 'deviceModel');
  const system = fact(connections, 'systemVersion');
  const udid = fact(connections, 'udid');
  return [model, system ? `iOS ${system}` : undefined, udid ? `UDID ${shortUdid(udid)}` : undefined].filter((part) => part !== undefined).join(' · ');
}

function appLine(connections: readonly DeviceSummary[]): string {
  const appName = connections.find((d) => d.appName)?.appName;
  const bundleId = connections.find((d) => d.bundleId)?.bundleId;
  return [appName, bundleId !== appName ? bundleId : undefined].filter((part) => part !== undefined).join(' · ');
}

function shortUdid(udid: string): string {
  return udid.length > 12 ? `${udid.slice(0, 8)}…` : udid;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * The connections a phone's "remove" takes away (R-PHONE-03): the dead ones (disconnected, still
 * retrying in vain). A live connection is disconnected on its own row, never by removing its phone.
 */
export function removableConnections(phone: Pick<Phone, 'connections'>): DeviceSummary[] {
  return phone.connections.filter((device) => device.state === 'disconnected');
}
