/**
 * The demo device: a simulated iPhone 17 that is a real peer. It listens on 127.0.0.1 and speaks the
 * runner protocol (WebSocket /ws, GET /health), relays to its in-app SDK over loopback HTTP, and shows
 * an app rendered by headless Chromium, so screenshots, taps, typing and scrolling are real.
 *
 *   const device = await startDemoDevice({ port: 0, faults: ['xctest-sparse'] });
 *   device.runnerUrl  // ws://127.0.0.1:PORT/ws
 *   device.adminUrl   // http://127.0.0.1:PORT/admin  (see admin.ts)
 *   device.appRevealUrl  // http://127.0.0.1:PORT2/?appreveal_session_token=…  (a secret: the caller decides where it goes)
 *
 * The same app also embeds AppReveal (appreveal-app.ts), on its own loopback port, so one app can be
 * inspected as both device kinds at once.
 */
import { MAX_DEMO_DEVICES } from '@shared/protocol/demo-admin';
import { DemoAppReveal } from '@demo/appreveal/app';
import { ALWAYS_PRESENT_TOOLS, APPREVEAL_FLAVORS, startAppRevealServer, type AppRevealFlavor, type AppRevealServerHandle } from '@demo/appreveal/server';
import { DemoDevice } from '@demo/device/demo-device';
import { RunnerServer } from '@demo/runner/server';

export { FAULT_NAMES, FAULTS, parseFault } from '@demo/phone/faults';
export { ALWAYS_PRESENT_TOOLS, APPREVEAL_FLAVORS, type AppRevealFlavor } from '@demo/appreveal/server';
export { DEFAULT_HEAVY_NODES, SCREENS } from '@demo/phone/app-page';
export { VARIANT_NAMES, VARIANTS } from '@demo/phone/variants';
export { findBrowser, NO_BROWSER_MESSAGE } from '@demo/phone/find-browser';

export interface DemoDeviceHandle {
  runnerUrl: string;
  adminUrl: string;
  /** AppReveal's session URL, token included. A secret: the demo never prints or logs it. */
  appRevealUrl?: string;
  /** AppReveal's base URL without the token: safe to show. */
  appRevealBaseUrl?: string;
  close(): Promise<void>;
}

export interface StartDemoDeviceOptions {
  /** 0 (the default) picks any free port. */
  port?: number;
  /** The screen to open on: login (default), feed, checkout, hostile, edges, heavy. */
  screen?: string;
  /** The heavy screen's size in views (default 50,000). */
  heavyNodes?: number;
  /** Faults as `name` or `name=value` (faults.ts lists them). */
  faults?: string[];
  /** The app as a designer changed it: moved-button, renamed-label, removed-row (variants.ts). */
  variants?: string[];
  /** A Chromium or Chrome executable; otherwise PARALLAX_BROWSER, then the usual places. */
  browserPath?: string;
  /** Embed an AppReveal server in the app (default true). */
  appReveal?: boolean;
  /** AppReveal's port; 0 (the default) picks any free one. */
  appRevealPort?: number;
  /** Advertise AppReveal over Bonjour (default false; the CLI turns it on). Only the address it listens on is advertised. */
  advertise?: boolean;
  /** Which real AppReveal server the app's speaks as: the iOS framework (default) or the Tauri crate. */
  appRevealFlavor?: AppRevealFlavor;
  /**
   * The AppReveal tools the app registers: absent, every tool of its flavour; `'always'`, only the tools
   * every server has (batch, device_info, get_state, launch_context), as Tauri's example app; or a list.
   */
  appRevealTools?: 'always' | readonly string[];
  /** AppReveal's listen address (default 127.0.0.1; 0.0.0.0 for the LAN, as the Tauri plugin binds). */
  appRevealHost?: string;
}

export async function startDemoDevice(options: StartDemoDeviceOptions = {}): Promise<DemoDeviceHandle> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${String(options.port)}`);
  const appRevealPort = options.appRevealPort ?? 0;
  if (!Number.isInteger(appRevealPort) || appRevealPort < 0 || appRevealPort > 65535)
    throw new Error(`invalid AppReveal port ${String(options.appRevealPort)}`);
  const device = await DemoDevice.start({
    screen: options.screen,
    faults: options.faults,
    variants: options.variants,
    browserPath: options.browserPath,
    heavyNodes: options.heavyNodes,
  });
  const server = new RunnerServer(device);
  let bound: number;
  try {
    bound = await server.listen(port);
  } catch (error) {
    await device.close();
    throw error;
  }
  let appReveal: AppRevealServerHandle | undefined;
  if (options.appReveal !== false) {
    try {
      const flavor = options.appRevealFlavor ?? 'ios';
      if (!APPREVEAL_FLAVORS.includes(flavor)) throw new Error(`unknown AppReveal flavour ${String(flavor)} (${APPREVEAL_FLAVORS.join(' or ')})`);
      const tools = options.appRevealTools === 'always' ? ALWAYS_PRESENT_TOOLS : options.appRevealTools;
      appReveal = await startAppRevealServer({
        app: new DemoAppReveal(device),
        flavor,
        ...(tools ? { tools } : {}),
        port: appRevealPort,
        host: options.appRevealHost ?? '127.0.0.1',
        advertise: options.advertise ?? false,
      });
    } catch (error) {
      await server.close();
      await device.close();
      throw error;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    runnerUrl: `ws://127.0.0.1:${bound}/ws`,
    adminUrl: `http://127.0.0.1:${bound}/admin/${server.adminToken}`,
    ...(appReveal ? { appRevealUrl: appReveal.url, appRevealBaseUrl: appReveal.baseUrl } : {}),
    close: () => {
      closing ??= (async () => {
        // AppReveal first: it says goodbye over Bonjour while the app can still answer.
        await appReveal?.close();
        await server.close();
        await device.close();
      })();
      return closing;
    },
  };
}

/** The screens many demo devices open on, in turn, so a grid of them shows different apps' states. */
export const FLEET_SCREENS = ['login', 'feed', 'checkout', 'edges', 'hostile'] as const;
/** More demo devices than this in one process is a mistake, not a test (each is a Chromium page). */
export { MAX_DEMO_DEVICES };

export interface FleetDevice extends DemoDeviceHandle {
  /** The screen it opened on. */
  screen: string;
}

/**
 * `count` demo devices in this process, sharing one browser (phone/browser.ts), on FLEET_SCREENS in turn
 * (or all on `options.screen`). Only the first embeds AppReveal (unless `appReveal` is false): one app
 * seen as both kinds is the point of the demo, and eight more AppReveal entries would only crowd the list.
 * Started two at a time; if one fails, those started are closed and the error is thrown.
 */
export async function startDemoDevices(count: number, options: Omit<StartDemoDeviceOptions, 'port' | 'appRevealPort'> = {}): Promise<FleetDevice[]> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_DEMO_DEVICES)
    throw new Error(`the number of demo devices must be 1–${MAX_DEMO_DEVICES}, not ${String(count)}`);
  const started: FleetDevice[] = [];
  const startOne = async (index: number): Promise<FleetDevice> => {
    const screen = options.screen ?? FLEET_SCREENS[index % FLEET_SCREENS.length]!;
    const handle = await startDemoDevice({
      ...options,
      screen,
      appReveal: index === 0 && options.appReveal !== false,
      advertise: index === 0 && options.advertise,
    });
    return { ...handle, screen };
  };
  const slots: Array<FleetDevice | undefined> = new Array(count).fill(undefined);
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < count && failure === undefined) {
      const index = next++;
      try {
        slots[index] = await startOne(index);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all([worker(), worker()]);
  for (const slot of slots) if (slot) started.push(slot);
  if (failure !== undefined) {
    for (const device of started) await device.close().catch(() => {});
    throw failure;
  }
  return started;
}
