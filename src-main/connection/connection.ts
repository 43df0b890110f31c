/**
 * What the device manager needs of a device, whatever protocol it speaks (an iOS runner over
 * WebSocket, or AppReveal's MCP inside the app): connection state, observing, and closing.
 */
import type { EventEmitter } from 'node:events';
import type { DeviceSummary, ObservedFrame, PhoneFacts } from '@shared/protocol/device';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { PerfSample } from '@shared/protocol/perf';
import type { Strategy } from '@shared/protocol/observation';

/** What an observe reads, for every kind of device (each ignores what it has no use for). */
export interface ObserveOptions {
  strategy?: Strategy;
  /** The `ios-sdk-observation-bridge` flag turned off for this read: XCTest only. */
  xctestOnly?: boolean;
  /** Skip the screenshot (the CLI's observe does not need one). */
  screenshot?: boolean;
  /** An AppReveal window to read (get_elements / screenshot); runner devices ignore it. */
  windowId?: string;
}

export type DeviceKind = DeviceSummary['kind'];
export type ConnectionState = DeviceSummary['state'];

export interface ConnectionEvents {
  state: [];
  /** A frame the device pushed by itself (live mode). */
  frame: [frame: ObservedFrame];
  /** A performance push, as a sample (a runner's; docs/rules.md#r-perfstrip-01). */
  perf: [sample: PerfSample];
}

export interface DeviceConnection extends EventEmitter<ConnectionEvents> {
  readonly kind: DeviceKind;
  /** Where the device is, safe to show and store: never carries a token. */
  readonly url: string;
  readonly state: ConnectionState;
  /** Why it is not connected, in one line. */
  readonly error: string | undefined;
  /** What the device said it can do: the runner's commands, or the app's AppReveal tools. */
  readonly capabilities: readonly string[];
  /** The app's bundle id when the device said who it is before any observe (AppReveal's launch_context). */
  readonly bundleId?: string | undefined;
  /** What the device said about the phone itself (the runner's UDID, the app's UIDevice words): docs/rules.md#r-phone-01. */
  readonly phone?: Pick<PhoneFacts, 'udid' | 'deviceName' | 'deviceModel' | 'systemVersion'> | undefined;
  /** The screen's size in points when the device said it before any observe (AppReveal's device_info). */
  readonly screenPoints?: { width: number; height: number } | undefined;
  start(): void;
  waitUntilConnected(timeoutMs?: number): Promise<void>;
  observe(options: ObserveOptions): Promise<ObservedFrame>;
  /** A screenshot alone, for live mode (cheaper than an observe: no tree, no SDK reads). */
  screenshot(): Promise<Pick<ObservedFrame, 'screenshot' | 'screenshotError'>>;
  /**
   * Runs one action and returns its result with the observation taken after it. The request arrives
   * decoded: each boundary (the host API, the CLI's flags, a trace's record) decodes it once, and
   * nothing below decodes it again (docs/rules.md#r-perf-13).
   */
  act(request: ActionRequest, options?: ActOptions): Promise<ActedStep>;
  close(): Promise<void>;
}

export interface ActOptions {
  xctestOnly?: boolean;
  /** Told each stage as the action enters it (a fresh read, the dispatch, the observation after, …). */
  onStage?: (stage: string) => void;
}

export interface ActedStep {
  result: ActionResult;
  after: ObservedFrame | undefined;
}
