/**
 * The demo device: a simulated iPhone 17 that is a real peer. It listens on 127.0.0.1 and speaks the
 * runner protocol (WebSocket /ws, GET /health), relays to its in-app SDK over loopback HTTP, and shows
 * an app rendered by headless Chromium, so screenshots, taps, typing and scrolling are real.
 *
 *   const device = await startDemoDevice({ port: 0, faults: ['xctest-sparse'] });
 *   device.runnerUrl  // ws://127.0.0.1:PORT/ws
 *   device.adminUrl   // http://127.0.0.1:PORT/admin  (see admin.ts)
 */
import { DemoDevice } from './device';
import { RunnerServer } from './runner-server';

export { FAULT_NAMES, FAULTS, parseFault } from './faults';
export { SCREENS } from './app-page';
export { findBrowser, NO_BROWSER_MESSAGE } from './find-browser';

export interface DemoDeviceHandle {
  runnerUrl: string;
  adminUrl: string;
  close(): Promise<void>;
}

export interface StartDemoDeviceOptions {
  /** 0 (the default) picks any free port. */
  port?: number;
  /** The screen to open on: login (default), feed, checkout, hostile, edges. */
  screen?: string;
  /** Faults as `name` or `name=value` (faults.ts lists them). */
  faults?: string[];
  /** A Chromium or Chrome executable; otherwise PARALLAX_BROWSER, then the usual places. */
  browserPath?: string;
}

export async function startDemoDevice(options: StartDemoDeviceOptions = {}): Promise<DemoDeviceHandle> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${String(options.port)}`);
  const device = await DemoDevice.start({ screen: options.screen, faults: options.faults, browserPath: options.browserPath });
  const server = new RunnerServer(device);
  let bound: number;
  try {
    bound = await server.listen(port);
  } catch (error) {
    await device.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    runnerUrl: `ws://127.0.0.1:${bound}/ws`,
    adminUrl: `http://127.0.0.1:${bound}/admin`,
    close: () => {
      closing ??= (async () => {
        await server.close();
        await device.close();
      })();
      return closing;
    },
  };
}
