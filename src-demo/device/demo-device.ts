/**
 * One demo device: the rendered app, the screen monitor, the SDK (observation and web view bridges and
 * their HTTP server) and the faults, kept consistent with each other. The runner server and the admin
 * endpoint drive it; neither reaches into the parts on its own.
 */
import { randomUUID } from 'node:crypto';
import { demoAppDir } from '@demo/base/paths';
import { AppPage, isScreenName, SCREENS, type ScreenName } from '@demo/phone/app-page';
import { DEVICE_LAUNCH_ARGS, LAUNCH_ARGS, sharedBrowser, type BrowserLease } from '@demo/phone/browser';
import { Faults, type FaultName } from '@demo/phone/faults';
import { parseVariants, type VariantName } from '@demo/phone/variants';
import { findBrowser } from '@demo/phone/find-browser';
import { ObservationBridge } from '@demo/sdk/observation-bridge';
import { ScreenMonitor } from '@demo/phone/screen-monitor';
import { SdkRelay } from '@demo/sdk/relay';
import { SdkServer } from '@demo/sdk/server';
import { WebBridge } from '@demo/sdk/web-bridge';

export interface DemoDeviceOptions {
  screen?: string | undefined;
  faults?: readonly string[] | undefined;
  /** The app as a designer changed it (variants.ts). */
  variants?: readonly string[] | undefined;
  browserPath?: string | undefined;
  /** Where the app's pages are; defaults to resources/demo-app in the project. */
  appDir?: string | undefined;
  /** The heavy screen's size in views (default DEFAULT_HEAVY_NODES). */
  heavyNodes?: number | undefined;
  /**
   * Draw at 1x and capture through an emulated 3x session, the way the device did before R-PERF-05's
   * native scale: only for benches that compare the two (docs/rules.md#r-perf-05).
   */
  emulatedScale?: boolean | undefined;
  /**
   * Read the native views in one task, the way the device did before R-PERF-10's sliced reads: only
   * for benches that compare the two (docs/rules.md#r-perf-10).
   */
  readInOneTask?: boolean | undefined;
}

const WEB_VIEW_FAULTS: readonly FaultName[] = ['web-two-webviews', 'web-process-terminated'];
const WEB_POLICY_FAULTS: readonly FaultName[] = [
  'web-redact',
  'web-max-bytes',
  'web-max-elements',
  'web-no-snapshot',
  'web-unregistered',
  'web-disallowed-origin',
];

export class DemoDevice {
  readonly startedAt = Date.now();
  /**
   * The simulated phone's UDID, as a simulator's looks (upper-case UUID): the runner's /health names it
   * as CtrlProxy's does, so two demo phones are two phones in the device list (docs/rules.md#r-phone-01).
   */
  readonly udid = randomUUID().toUpperCase();
  readonly runnerRequests: Record<string, number> = {};
  /** Runner commands being handled now (admin stats' `busy`): a slow read outlives the client that gave up on it. */
  commandsInFlight = 0;
  private faultWork: Promise<unknown> = Promise.resolve();
  private variantList: VariantName[] = [];

  private constructor(
    private readonly lease: BrowserLease,
    readonly app: AppPage,
    readonly faults: Faults,
    readonly monitor: ScreenMonitor,
    readonly bridge: ObservationBridge,
    readonly web: WebBridge,
    readonly sdkServer: SdkServer,
    readonly relay: SdkRelay,
  ) {}

  static async start(options: DemoDeviceOptions = {}): Promise<DemoDevice> {
    // Validate everything cheap before paying for a browser.
    const faults = new Faults(options.faults ?? []);
    const variants = parseVariants(options.variants ?? []);
    const screen = options.screen ?? 'login';
    if (!isScreenName(screen)) throw new Error(`unknown screen "${screen}" (screens: ${SCREENS.join(', ')})`);
    const executable = findBrowser({ explicitPath: options.browserPath });
    const appDir = options.appDir ?? demoAppDir();

    // This process's demo devices share one browser, each in its own context (browser.ts).
    const lease = await sharedBrowser(executable, options.emulatedScale ? LAUNCH_ARGS : DEVICE_LAUNCH_ARGS);
    let app: AppPage | undefined;
    let sdk: SdkServer | undefined;
    try {
      app = await AppPage.create(lease.browser, appDir);
      if (options.readInOneTask) app.slicedReads = false;
      const bridge = new ObservationBridge(app, faults);
      const web = new WebBridge(app, faults);
      const sdkServer = new SdkServer(bridge, web, faults);
      sdk = sdkServer;
      const relay = new SdkRelay(() => sdkServer.url);
      const monitor = new ScreenMonitor(app);
      const device = new DemoDevice(lease, app, faults, monitor, bridge, web, sdkServer, relay);

      // The SDK port is chosen even when the SDK starts absent, so a later "present" reuses it.
      await sdkServer.start();
      if (options.heavyNodes !== undefined) await app.setHeavyNodes(options.heavyNodes);
      await app.load(screen);
      await device.setVariants(variants);
      await device.applyFaults(faults.list().map((spec) => spec.split('=')[0] as FaultName));
      faults.on('changed', (names) => {
        device.faultWork = device.faultWork.then(() => device.applyFaults(names)).catch(() => {});
      });
      await monitor.refresh();
      return device;
    } catch (error) {
      // The browser may serve other devices: undo only what this one made.
      await sdk?.stop().catch(() => {});
      await app?.close().catch(() => {});
      await lease.release();
      throw error;
    }
  }

  /** Makes the app and the SDK follow the faults that change what exists, not just how it answers. */
  private async applyFaults(names: readonly FaultName[]): Promise<void> {
    if (names.includes('sdk-absent')) {
      if (this.faults.has('sdk-absent')) await this.sdkServer.stop();
      else await this.sdkServer.start();
    }
    if (names.some((name) => WEB_VIEW_FAULTS.includes(name))) {
      if (this.faults.has('web-process-terminated')) this.web.discard('checkout');
      await this.app.setWebViews({
        twoWebViews: this.faults.has('web-two-webviews'),
        checkoutTerminated: this.faults.has('web-process-terminated'),
      });
    }
    if (names.includes('xctest-read-hold')) await this.app.holdReads(this.faults.has('xctest-read-hold'));
    if (names.includes('web-no-snapshot') && this.faults.has('web-no-snapshot')) {
      this.web.discard('checkout');
      this.web.discard('promo');
    }
    if (names.some((name) => WEB_POLICY_FAULTS.includes(name))) await this.web.reconfigure();
  }

  /** Resolves once every fault change made so far has reached the app. */
  settled(): Promise<void> {
    return this.faultWork.then(() => undefined);
  }

  variants(): VariantName[] {
    return [...this.variantList];
  }

  /** Replaces the app's variants (throws naming an unknown one, changing nothing) and waits for the screen to show them. */
  async setVariants(list: readonly string[]): Promise<VariantName[]> {
    const variants = parseVariants(list);
    this.variantList = variants;
    await this.app.setVariants(variants);
    await this.monitor.refresh();
    return this.variants();
  }

  countRequest(type: string): void {
    this.runnerRequests[type] = (this.runnerRequests[type] ?? 0) + 1;
  }

  async setScreen(screen: ScreenName, options: { heavyNodes?: number | undefined } = {}): Promise<void> {
    if (options.heavyNodes !== undefined) await this.app.setHeavyNodes(options.heavyNodes);
    await this.app.showScreen(screen);
    await this.monitor.refresh();
  }

  /** A cold relaunch of the app: every screen back to its first state, every document reloaded. */
  async relaunch(screen: ScreenName = 'login'): Promise<void> {
    await this.app.relaunch(screen);
    // A relaunch is the same build: its variants stay.
    await this.app.setVariants(this.variantList);
    await this.applyFaults(['web-two-webviews', 'web-process-terminated']);
    await this.web.reconfigure();
    await this.monitor.refresh();
  }

  resetStats(): void {
    for (const key of Object.keys(this.runnerRequests)) delete this.runnerRequests[key];
    for (const key of Object.keys(this.sdkServer.requests)) delete this.sdkServer.requests[key];
  }

  async close(): Promise<void> {
    this.monitor.stop();
    await this.sdkServer.stop();
    await this.app.close();
    await this.lease.release();
  }
}
