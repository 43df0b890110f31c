/**
 * Owns the device connections: one RunnerClient per device, its state, and its latest frame.
 *
 * A device that disconnects stays in the list as `disconnected` with its last error, keeps its last
 * frame, and reconnects by itself; nothing it does can throw out of here.
 */
import { EventEmitter } from 'node:events';
import type { DeviceSummary, Frame } from '../../src-shared/protocol/api';
import type { HierarchyUpdate } from '../../src-shared/protocol/runner';
import { RunnerClient, type RunnerClientOptions } from '../devices/runner-client';
import { Observer, type ObserveOptions } from './observer';

export type DeviceKind = DeviceSummary['kind'];

interface ManagedDevice {
  id: string;
  kind: DeviceKind;
  name: string;
  client: RunnerClient;
  observer: Observer;
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
    const device: ManagedDevice = {
      id,
      kind: options.kind ?? 'runner',
      name: options.name ?? url,
      client,
      observer: new Observer(client),
      lastFrame: undefined,
      pendingPush: undefined,
      pairing: false,
    };
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

  /** One observe pass (see Observer): the merged observation and a screenshot of the same moment. */
  async observe(deviceId: string, options: ObserveOptions = {}): Promise<Frame> {
    const device = this.get(deviceId);
    await device.client.waitUntilConnected();
    const frame: Frame = { deviceId, ...(await device.observer.observe(options)) };
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
   * A pushed hierarchy becomes a live frame: observed (bridge and web merged, screenshot of the same
   * moment) without reading the hierarchy again. Pushes that arrive during a pass collapse into the newest.
   */
  private async onHierarchyPush(device: ManagedDevice, update: HierarchyUpdate): Promise<void> {
    device.pendingPush = update;
    if (device.pairing) return;
    device.pairing = true;
    try {
      while (device.pendingPush) {
        const push = device.pendingPush;
        device.pendingPush = undefined;
        const frame: Frame = { deviceId: device.id, ...(await device.observer.observe({}, push)) };
        if (!this.devices.has(device.id)) return;
        device.lastFrame = frame;
        this.emit('frame', frame);
      }
    } catch {
      // A pass that failed outright (the runner went away) leaves the last frame standing.
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
    const bundleId = device.lastFrame?.observation?.activeWindow?.bundleId;
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

