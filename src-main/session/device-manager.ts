/**
 * Owns the device connections: one RunnerClient per device, its state, and its latest frame.
 *
 * A device that disconnects stays in the list as `disconnected` with its last error, keeps its last
 * frame, and reconnects by itself; nothing it does can throw out of here.
 */
import { EventEmitter } from 'node:events';
import type { DeviceSummary, Frame } from '../../src-shared/protocol/api';
import type { HierarchyUpdate } from '../../src-shared/protocol/runner';
import { RunnerClient, RunnerError, type RunnerClientOptions, type RunnerReply } from '../devices/runner-client';

export type DeviceKind = DeviceSummary['kind'];

interface ManagedDevice {
  id: string;
  kind: DeviceKind;
  name: string;
  client: RunnerClient;
  lastFrame: Frame | undefined;
  /** The newest hierarchy push not yet paired with a screenshot, and whether a pairing is running. */
  pendingPush: HierarchyUpdate | undefined;
  pairing: boolean;
}

interface DeviceManagerEvents {
  devicesChanged: [devices: DeviceSummary[]];
  frame: [frame: Frame];
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

  constructor(private readonly clientOptions: RunnerClientOptions = {}) {
    super();
  }

  list(): DeviceSummary[] {
    return [...this.devices.values()].map((device) => this.summary(device));
  }

  /** Adds a runner by its WebSocket URL (the same URL twice is the same device) and starts connecting. */
  connect(url: string, options: { name?: string; kind?: DeviceKind } = {}): DeviceSummary {
    const existing = [...this.devices.values()].find((device) => device.client.url === url);
    if (existing) return this.summary(existing);
    const id = `device-${this.nextId++}`;
    const client = new RunnerClient(url, this.clientOptions);
    const device: ManagedDevice = { id, kind: options.kind ?? 'runner', name: options.name ?? url, client, lastFrame: undefined, pendingPush: undefined, pairing: false };
    this.devices.set(id, device);
    client.on('state', () => this.emitDevices());
    client.on('hierarchy', (update) => void this.onHierarchyPush(device, update));
    client.on('protocolError', () => {
      // Counted by the client; a garbage frame must not take the device down.
    });
    client.start();
    this.emitDevices();
    return this.summary(device);
  }

  async disconnect(deviceId: string): Promise<void> {
    const device = this.get(deviceId);
    this.devices.delete(deviceId);
    await device.client.close();
    this.emitDevices();
  }

  /** Reads a fresh hierarchy and screenshot together; one failing never loses the other. */
  async observe(deviceId: string): Promise<Frame> {
    const device = this.get(deviceId);
    const { client } = device;
    await client.waitUntilConnected();
    const hierarchyCommand = client.supports('request_hierarchy') ? 'request_hierarchy' : 'request_hierarchy_if_stale';
    const [hierarchyReply, screenshotReply] = await Promise.allSettled([
      client.request(hierarchyCommand, {}),
      client.supports('request_screenshot')
        ? client.request('request_screenshot', {})
        : Promise.reject(new RunnerError('unsupported_command', 'this runner takes no screenshots')),
    ]);
    if (hierarchyReply.status === 'rejected' && screenshotReply.status === 'rejected') {
      throw hierarchyReply.reason;
    }
    const frame: Frame = {
      deviceId,
      hierarchy: null,
      screenshot: null,
      receivedAt: Date.now(),
    };
    if (hierarchyReply.status === 'fulfilled' && hierarchyReply.value.type === 'hierarchy_update') {
      const update = hierarchyReply.value as HierarchyUpdate;
      frame.hierarchy = update.data ?? null;
      if (update.frameContext) frame.hierarchyFrameContext = update.frameContext;
    } else if (hierarchyReply.status === 'fulfilled') {
      frame.hierarchy = device.lastFrame?.hierarchy ?? null;
    }
    Object.assign(frame, screenshotReply.status === 'fulfilled' ? screenshotFields(screenshotReply.value) : { screenshotError: (screenshotReply.reason as Error).message });
    device.lastFrame = frame;
    return frame;
  }

  lastFrame(deviceId: string): Frame | undefined {
    return this.get(deviceId).lastFrame;
  }

  async closeAll(): Promise<void> {
    const devices = [...this.devices.values()];
    this.devices.clear();
    await Promise.all(devices.map((device) => device.client.close()));
  }

  /**
   * A pushed hierarchy is paired with a screenshot taken right after it, so the frame shows one moment.
   * Pushes that arrive while a screenshot is in flight collapse into the newest one.
   */
  private async onHierarchyPush(device: ManagedDevice, update: HierarchyUpdate): Promise<void> {
    if (!update.data) return;
    device.pendingPush = update;
    if (device.pairing) return;
    device.pairing = true;
    try {
      while (device.pendingPush) {
        const push = device.pendingPush;
        device.pendingPush = undefined;
        const frame: Frame = {
          deviceId: device.id,
          hierarchy: push.data ?? null,
          screenshot: null,
          receivedAt: Date.now(),
          ...(push.frameContext ? { hierarchyFrameContext: push.frameContext } : {}),
        };
        if (device.client.supports('request_screenshot')) {
          try {
            Object.assign(frame, screenshotFields(await device.client.request('request_screenshot', {}, { timeoutMs: 3_000 })));
          } catch (error) {
            frame.screenshotError = (error as Error).message;
          }
        } else {
          frame.screenshotError = 'this runner takes no screenshots';
        }
        if (!this.devices.has(device.id)) return;
        device.lastFrame = frame;
        this.emit('frame', frame);
      }
    } finally {
      device.pairing = false;
    }
  }

  private get(deviceId: string): ManagedDevice {
    const device = this.devices.get(deviceId);
    if (!device) throw new DeviceNotFoundError(deviceId);
    return device;
  }

  private summary(device: ManagedDevice): DeviceSummary {
    const info = device.client.connectedInfo;
    const bundleId = device.lastFrame?.hierarchy?.packageName;
    return {
      id: device.id,
      kind: device.kind,
      name: device.name,
      url: device.client.url,
      state: device.client.state,
      ...(device.client.error && device.client.state !== 'connected' ? { error: device.client.error } : {}),
      ...(bundleId ? { bundleId } : {}),
      supportedCommands: info?.supportedCommands ?? [],
    };
  }

  private emitDevices(): void {
    this.emit('devicesChanged', this.list());
  }
}

function screenshotFields(reply: RunnerReply): Pick<Frame, 'screenshot' | 'screenshotError'> {
  if (reply.type === 'screenshot' && 'data' in reply && typeof reply.data === 'string') {
    return {
      screenshot: {
        format: 'png',
        dataBase64: reply.data,
        ...('frameContext' in reply && typeof reply.frameContext === 'string' ? { frameContext: reply.frameContext } : {}),
      },
    };
  }
  return { screenshot: null, screenshotError: 'error' in reply && typeof reply.error === 'string' ? reply.error : 'no screenshot' };
}
