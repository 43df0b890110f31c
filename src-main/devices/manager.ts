/**
 * Owns the device connections (runners and AppReveal apps), their state and their latest frame.
 *
 * A device that disconnects stays in the list as `disconnected` with its last error, keeps its last
 * frame, and reconnects by itself; nothing it does can throw out of here.
 */
import { EventEmitter } from 'node:events';
import type { ActionProgress } from '@shared/api/api';
import type { ActionStep, DeviceSummary, Frame, PhoneFacts, ScreenshotFrame } from '@shared/protocol/device';
import type { ActionRequest } from '@shared/protocol/action';
import type { DevicePerfSample } from '@shared/protocol/perf';
import { FRAME_NODE_BUDGET, framedStepCount, framesDropped, withoutFrames } from '@shared/inspect/actions';
import { appNameOf } from '@shared/inspect/observation';
import { inFlightRequest, keptTyping, scrubTypedText, typesWithheldText } from '@shared/act/secret';
import type { RunnerClientOptions } from '@main/runner/client';
import { AppRevealConnection } from '@main/appreveal/connection';
import type { DeviceConnection, DeviceKind, ObserveOptions } from '@main/connection/connection';
import { RunnerConnection } from '@main/devices/runner-connection';

export type { DeviceKind } from '@main/connection/connection';

interface ManagedDevice {
  id: string;
  name: string;
  /** Whether the name was given rather than the URL. */
  named: boolean;
  /** The frame facts the list last showed (listedFactsOf), to announce only a change. */
  listed?: string;
  /**
   * Whether the runner's latest read merged the SDK bridge; a read with the bridge flag off (XCTest
   * only) leaves it as it was, so ticking XCTest only does not make the bridge vanish from the list.
   */
  sdkBridge?: boolean;
  /** A recorded session's folder (a replay device). */
  recording?: { folder: string };
  connection: DeviceConnection;
  lastFrame: Frame | undefined;
  /** The device's action steps, oldest first (see HISTORY_STEPS). */
  history: ActionStep[];
  /** The screen's size in points as the latest frame that reported it said (docs/rules.md#r-tap-11). */
  screenPoints: { width: number; height: number } | undefined;
  /**
   * Secrets typed on this device (docs/rules.md#r-secret-02): a field the user called secret
   * may show them in clear, so every frame read afterwards is scrubbed of them; the newest MAX_SECRETS.
   */
  secrets: string[];
}

const MAX_SECRETS = 32;

/**
 * Steps kept per device, so a window opened (or reloaded) mid-session shows the timeline so far; the
 * newest HISTORY_FRAMES keep their before / after frames (fewer on a heavy screen: FRAME_NODE_BUDGET),
 * older ones only their results. The
 * renderer's own timeline keeps the same number of steps.
 */
export const HISTORY_STEPS = 200;
export const HISTORY_FRAMES = 10;

interface DeviceManagerEvents {
  devicesChanged: [devices: DeviceSummary[]];
  frame: [frame: Frame];
  /** An action about to be sent, with the frame it was aimed from (a recording writes it down first). */
  actionStarted: [step: Pick<ActionStep, 'callId' | 'deviceId' | 'request' | 'startedAt' | 'before'>];
  action: [step: ActionStep];
  /** An action in flight entered a stage (docs/rules.md#r-act-05). */
  actionProgress: [progress: ActionProgress];
  /** A frame read on request (not a live push): what a recording keeps as an observation. */
  observed: [frame: Frame];
  /** A device's performance push (docs/rules.md#r-perfstrip-01). */
  perf: [event: DevicePerfSample];
}

/** A request as the host kept it, its typed text withheld, sent back to be run (docs/rules.md#r-secret-14). */
export class WithheldTextError extends Error {
  constructor() {
    super(
      'this request is a step as Parallax kept it: its typed text was withheld (a secret, or text no read could classify), so sent again it would type nothing; type it again',
    );
    this.name = 'WithheldTextError';
  }
}

export class DeviceNotFoundError extends Error {
  constructor(readonly deviceId: string) {
    super(`no device ${deviceId}`);
    this.name = 'DeviceNotFoundError';
  }
}

export class DeviceManager extends EventEmitter<DeviceManagerEvents> {
  private readonly devices = new Map<string, ManagedDevice>();
  private nextId = 1;
  private nextCall = 1;

  constructor(
    private readonly clientOptions: RunnerClientOptions = {},
    /** Nodes the kept frames of a device's history hold at most together (docs/rules.md#r-perf-12). */
    private readonly historyFrameNodes = FRAME_NODE_BUDGET,
  ) {
    super();
  }

  /** The summary of one device (for a trace's manifest). */
  summaryOf(deviceId: string): DeviceSummary {
    return this.summary(this.get(deviceId));
  }

  list(): DeviceSummary[] {
    return [...this.devices.values()].map((device) => this.summary(device));
  }

  /**
   * Adds a device by its URL and starts connecting: `ws://` is a runner, `http(s)://` an AppReveal
   * session URL (its token stays inside the connection). The same device twice is one device.
   */
  connect(url: string, options: { name?: string; kind?: DeviceKind; recording?: { folder: string } } = {}): DeviceSummary {
    const connection = connectionFor(url, { ...options, runner: this.clientOptions, phoneHealth: true });
    const existing = [...this.devices.values()].find((device) => device.connection.url === connection.url);
    if (existing) {
      // The same app pasted with another token: the entry takes the new session and says what the app
      // thinks of it (docs/rules.md#r-conn-words-ar), instead of answering with the old one silently.
      if (existing.connection instanceof AppRevealConnection) existing.connection.useSession(url);
      return this.summary(existing);
    }
    const id = `device-${this.nextId++}`;
    const device: ManagedDevice = {
      id,
      name: options.name ?? connection.url,
      named: options.name !== undefined,
      ...(options.recording ? { recording: options.recording } : {}),
      connection,
      lastFrame: undefined,
      history: [],
      secrets: [],
      screenPoints: undefined,
    };
    this.devices.set(id, device);
    connection.on('state', () => this.emitDevices());
    connection.on('frame', (observed) => {
      if (!this.devices.has(id)) return;
      const frame = this.stamp(device, { deviceId: id, ...observed });
      this.setFrame(device, frame);
      this.emit('frame', frame);
    });
    connection.on('perf', (sample) => {
      if (this.devices.has(id)) this.emit('perf', { deviceId: id, sample });
    });
    connection.start();
    this.emitDevices();
    return this.summary(device);
  }

  async disconnect(deviceId: string): Promise<void> {
    const device = this.get(deviceId);
    this.devices.delete(deviceId);
    await device.connection.close();
    this.emitDevices();
  }

  /** One observe pass: the merged observation and a screenshot of the same moment. */
  async observe(deviceId: string, options: ObserveOptions = {}): Promise<Frame> {
    const device = this.get(deviceId);
    await device.connection.waitUntilConnected();
    const frame: Frame = this.stamp(device, { deviceId, ...(await device.connection.observe(options)) });
    this.setFrame(device, frame);
    this.emit('observed', frame);
    return frame;
  }

  /** A fresh screenshot alone; it also becomes the current frame's picture (live mode). */
  async screenshot(deviceId: string): Promise<ScreenshotFrame> {
    const device = this.get(deviceId);
    const shot = await device.connection.screenshot();
    if (device.lastFrame && shot.screenshot) device.lastFrame = { ...device.lastFrame, screenshot: shot.screenshot };
    return { deviceId, receivedAt: Date.now(), ...shot };
  }

  /**
   * Runs one action and records it as a timeline step: the frame the user was looking at before, the
   * result, and the observation after (which also becomes the device's current frame).
   */
  async act(deviceId: string, request: ActionRequest, options: { xctestOnly?: boolean; clientRef?: string } = {}): Promise<ActionStep> {
    const device = this.get(deviceId);
    if (typesWithheldText(request)) throw new WithheldTextError();
    const before = device.lastFrame ?? null;
    const startedAt = Date.now();
    const callId = `call-${this.nextCall++}`;
    const { clientRef } = options;
    const named = clientRef !== undefined ? { clientRef } : {};
    // A typed secret exists only in the request to the device (docs/rules.md#r-secret): until the read
    // after says whether the text is one, the events in flight carry no typed text (r-secret-05).
    const beforeRoot = before?.observation?.viewHierarchy?.hierarchy;
    const shown = inFlightRequest(request);
    this.emit('actionStarted', { callId, deviceId, request: shown, startedAt, before });
    const progress = (stage: string) =>
      this.emit('actionProgress', { callId, deviceId, ...named, request: shown, startedAt, stage, elapsedMs: Date.now() - startedAt });
    progress('started');
    const acted = await device.connection.act(request, { ...(options.xctestOnly ? { xctestOnly: true } : {}), onStage: progress });
    // The one rule (docs/rules.md#r-secret-13): what the trace would leave out, the history and the
    // timeline's events leave out too, and every later frame is scrubbed of it.
    const kept = keptTyping(request, { before: beforeRoot, after: acted.after?.observation?.viewHierarchy?.hierarchy, result: acted.result });
    if (kept.withheld.length > 0) {
      device.secrets = [...device.secrets.filter((t) => !kept.withheld.includes(t)), ...kept.withheld].slice(-MAX_SECRETS);
    }
    const result = scrubTypedText(acted.result, device.secrets);
    const after = acted.after;
    const afterFrame: Frame | null = after ? this.stamp(device, { deviceId, ...after }) : null;
    if (afterFrame && this.devices.has(deviceId)) {
      this.setFrame(device, afterFrame);
      this.emit('frame', afterFrame);
    }
    const step: ActionStep = { callId, deviceId, ...named, request: kept.request, result, startedAt, before, after: afterFrame };
    this.remember(device, step);
    this.emit('action', step);
    return step;
  }

  /**
   * A frame with the screen's size in points: its own observation's, else the latest one the device
   * reported, so a click on a screenshot without a tree still converts to points (docs/rules.md#r-tap-11).
   */
  private stamp(device: ManagedDevice, read: Frame): Frame {
    const frame = withoutSecretText(read, device.secrets);
    const own = frame.observation?.screenSize;
    if (own && own.width > 0 && own.height > 0) {
      device.screenPoints = { width: own.width, height: own.height };
      return { ...frame, screenPoints: { ...device.screenPoints, from: 'observation' } };
    }
    return device.screenPoints ? { ...frame, screenPoints: { ...device.screenPoints, from: 'earlier' } } : frame;
  }

  /** The device's action steps so far, oldest first; only the newest HISTORY_FRAMES carry their frames. */
  history(deviceId: string): ActionStep[] {
    return [...this.get(deviceId).history];
  }

  private remember(device: ManagedDevice, step: ActionStep): void {
    const history = device.history;
    history.push(step);
    if (history.length > HISTORY_STEPS) history.splice(0, history.length - HISTORY_STEPS);
    // The newest keep their frames, within HISTORY_FRAMES steps and FRAME_NODE_BUDGET nodes (docs/rules.md#r-perf-12).
    const framed = framedStepCount([...history].reverse(), HISTORY_FRAMES, this.historyFrameNodes);
    for (let i = history.length - 1 - framed; i >= 0 && !framesDropped(history[i]!); i--) history[i] = withoutFrames(history[i]!);
  }

  /** The connection behind a device, for the session parts that speak its protocol (actions). */
  connectionOf(deviceId: string): DeviceConnection {
    return this.get(deviceId).connection;
  }

  lastFrame(deviceId: string): Frame | undefined {
    return this.get(deviceId).lastFrame;
  }

  async closeAll(): Promise<void> {
    const devices = [...this.devices.values()];
    this.devices.clear();
    await Promise.all(devices.map((device) => device.connection.close()));
  }

  /**
   * The device's newest frame. The list shows the app and pairs phones by the app, the screen's size and
   * the bridge (docs/rules.md#r-phone-01), so a frame that changes one of them is announced.
   */
  private setFrame(device: ManagedDevice, frame: Frame): void {
    device.lastFrame = frame;
    const bridge = frame.observation?.sources.bridge;
    // `flag_off` (XCTest only: the ios-sdk-observation-bridge flag off) did not ask the bridge, so it says nothing of it.
    if (bridge && bridge.reason !== 'flag_off') device.sdkBridge = bridge.status === 'merged';
    const listed = listedFactsOf(device);
    if (listed !== device.listed && this.devices.has(device.id)) {
      device.listed = listed;
      this.emitDevices();
    }
  }

  private get(deviceId: string): ManagedDevice {
    const device = this.devices.get(deviceId);
    if (!device) throw new DeviceNotFoundError(deviceId);
    return device;
  }

  private summary(device: ManagedDevice): DeviceSummary {
    const { connection } = device;
    const bundleId = device.lastFrame?.observation?.activeWindow?.bundleId ?? connection.bundleId;
    const appName = appNameOf(device.lastFrame?.observation);
    const phone = phoneFactsOf(connection, device);
    return {
      id: device.id,
      kind: connection.kind,
      name: device.name,
      ...(device.named ? { named: true } : {}),
      ...(Object.keys(phone).length > 0 ? { phone } : {}),
      ...(appName ? { appName } : {}),
      ...(device.recording ? { recording: device.recording } : {}),
      url: connection.url,
      state: connection.state,
      ...(connection.error ? { error: connection.error } : {}),
      ...(bundleId ? { bundleId } : {}),
      supportedCommands: [...connection.capabilities],
    };
  }

  private emitDevices(): void {
    this.emit('devicesChanged', this.list());
  }
}

export interface ConnectionOptions {
  kind?: DeviceKind;
  runner?: RunnerClientOptions;
  /** Whether the observation after an action carries a screenshot (a command line has no screen to refresh). Default true. */
  screenshotAfter?: boolean;
  /** Whether the runner's pushes become live frames (a command line shows none: docs/rules.md#r-cli-02). Default true. */
  livePushes?: boolean;
  /** Whether a runner's /health is read for the phone's UDID (the device list's, docs/rules.md#r-phone-01). Default false. */
  phoneHealth?: boolean;
}

/**
 * The one way a device connection is made, for the host and the command line alike: `ws://` is a
 * runner; anything else must be an AppReveal session URL (throws AppRevealUrlError if not).
 */
export function connectionFor(url: string, options: ConnectionOptions = {}): DeviceConnection {
  if (!/^wss?:\/\//.test(url)) return new AppRevealConnection(url);
  return new RunnerConnection(options.kind ?? 'runner', url, options.runner, options.screenshotAfter === false ? { screenshotAfter: false } : {}, {
    ...(options.livePushes === false ? { livePushes: false } : {}),
    ...(options.phoneHealth === true ? { phoneHealth: true } : {}),
  });
}

function listedFactsOf(device: ManagedDevice): string {
  const observation = device.lastFrame?.observation;
  return JSON.stringify([appNameOf(observation), observation?.activeWindow?.bundleId, device.screenPoints, device.sdkBridge]);
}

/** What the device list pairs phones by (docs/rules.md#r-phone-01): the connection's own words, the screen's size, the bridge. */
function phoneFactsOf(connection: DeviceConnection, device: ManagedDevice): PhoneFacts {
  const said = connection.phone ?? {};
  const screen = device.screenPoints ?? connection.screenPoints;
  return {
    ...said,
    ...(screen ? { screen: { ...screen } } : {}),
    ...(connection.kind !== 'appreveal' && device.sdkBridge !== undefined ? { sdkBridge: device.sdkBridge } : {}),
  };
}

/** A frame with a typed secret taken out of everything but its picture (base64, where any text may occur by chance). */
function withoutSecretText<F extends { screenshot?: unknown }>(frame: F, texts: readonly string[]): F {
  if (texts.length === 0) return frame;
  const { screenshot, ...rest } = frame;
  return { ...scrubTypedText(rest, texts), ...(screenshot !== undefined ? { screenshot } : {}) } as F;
}
