/**
 * Discovery: one live list of devices merged from Bonjour (`_appreveal._tcp`), the runner port probe
 * (127.0.0.1:8765–8864) and manual entries.
 *
 * A device is an endpoint (kind, host, port); the same endpoint found several ways is one device with
 * several `sources`. Every endpoint is health-checked before it is first listed and on every sweep, so
 * the list says `available` or `unreachable` (with why) rather than echoing announcements. Nothing in
 * here throws out of a timer or an event: a failing source is reported as a `warning` and the rest
 * keeps going.
 */
import { EventEmitter } from 'node:events';
import { AppRevealHealthSchema, type DiscoveredDevice } from '@shared/protocol/appreveal';
import { AppRevealBrowser, type AppRevealBrowserOptions, type BonjourAppRevealService } from './bonjour';
import { httpGet, mapBounded } from './http-probe';
import { ManualEntries, type ManualEntry, type ManualEntryInput } from './manual';
import { probeRunnerPort, probeRunnerPorts, type PortProbeResult, type RunnerProbeOptions } from './runner-probe';

export { DiscoveredDeviceSchema, type DiscoveredDevice } from '@shared/protocol/appreveal';
export { AppRevealBrowser, describeService, resolveServiceHost, type BonjourAppRevealService } from './bonjour';
export { ManualEntries, ManualEntryError, normalizeManualUrl, type ManualEntry, type ManualEntryInput } from './manual';
export { probeRunnerPort, probeRunnerPorts, RUNNER_PORT_FIRST, RUNNER_PORT_LAST, type PortProbeResult } from './runner-probe';

export interface DiscoveryOptions {
  /** JSON file for manual entries; absent: manual entries last as long as the process. */
  settingsPath?: string;
  /** Browse Bonjour (default true). */
  bonjour?: boolean | AppRevealBrowserOptions;
  /** Probe the runner port range (default true). */
  runnerProbe?: boolean | RunnerProbeOptions;
  /** Time between sweeps (probe + health checks), ms. */
  intervalMs?: number;
  /** Timeout of one health check, ms. */
  healthTimeoutMs?: number;
}

type Kind = DiscoveredDevice['kind'];
type Source = DiscoveredDevice['sources'][number];

interface Check {
  state: DiscoveredDevice['state'];
  error?: string;
  name?: string;
  bundleId?: string;
  auth?: string;
}

interface Endpoint {
  id: string;
  kind: Kind;
  host: string;
  port: number;
  bonjour?: BonjourAppRevealService;
  probe?: PortProbeResult;
  manual?: ManualEntry;
  /** The last health check (for endpoints the port probe does not cover). */
  check?: Check;
}

interface DiscoveryEvents {
  changed: [devices: DiscoveredDevice[]];
  warning: [error: Error];
}

const SOURCE_ORDER: readonly Source[] = ['bonjour', 'probe', 'manual'];

export class Discovery extends EventEmitter<DiscoveryEvents> {
  private readonly endpoints = new Map<string, Endpoint>();
  /** Bonjour fqdn → endpoint id, so an SRV change moves the service to its new endpoint. */
  private readonly bonjourIndex = new Map<string, string>();
  private readonly manual: ManualEntries;
  private browser: AppRevealBrowser | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private started = false;
  private stopped = false;
  private lastEmitted = '[]';

  constructor(private readonly options: DiscoveryOptions = {}) {
    super();
    this.manual = new ManualEntries(options.settingsPath);
  }

  /** Loads manual entries, starts browsing and runs the first sweep; resolves when the list is filled. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    try {
      for (const entry of await this.manual.load()) this.attachManual(entry);
      if (this.manual.loadError) this.warn(new Error(this.manual.loadError));
    } catch (error) {
      this.warn(error);
    }
    if (this.options.bonjour !== false) {
      const browser = new AppRevealBrowser(typeof this.options.bonjour === 'object' ? this.options.bonjour : {});
      this.browser = browser;
      browser.on('up', (service) => this.onBonjour(service));
      browser.on('update', (service) => this.onBonjour(service));
      browser.on('down', (service) => this.onBonjourDown(service));
      browser.on('warning', (error) => this.warn(error));
      browser.start();
    }
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.intervalMs ?? 3_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    clearInterval(this.timer);
    this.timer = undefined;
    const browser = this.browser;
    this.browser = undefined;
    await browser?.stop();
    await this.sweeping;
  }

  /** The devices, each health-checked at least once. */
  list(): DiscoveredDevice[] {
    const devices: DiscoveredDevice[] = [];
    for (const endpoint of this.endpoints.values()) {
      const device = toDevice(endpoint);
      if (device) devices.push(device);
    }
    return devices.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  manualEntries(): ManualEntry[] {
    return this.manual.list();
  }

  /** One sweep now: the runner port probe and a health check of every other endpoint. */
  refresh(): Promise<void> {
    this.sweeping ??= this.sweep().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** Remembers a device (an AppReveal session URL loses its token here) and checks it at once. */
  async addManual(input: ManualEntryInput): Promise<DiscoveredDevice> {
    const entry = await this.manual.add(input);
    const endpoint = this.attachManual(entry);
    if (!endpoint) throw new Error('the manual entry has no host and port');
    if (!endpoint.probe) endpoint.check = await this.check(endpoint);
    this.emitIfChanged();
    const device = this.list().find((d) => d.id === endpoint.id);
    if (!device) throw new Error('the manual entry could not be listed');
    return device;
  }

  /** Forgets a manual entry, by its entry id or by the device id. */
  async removeManual(id: string): Promise<boolean> {
    const entry = this.manual.list().find((e) => e.id === id) ?? this.endpoints.get(id)?.manual;
    if (!entry) return false;
    const removed = await this.manual.remove(entry.id);
    for (const endpoint of this.endpoints.values()) {
      if (endpoint.manual?.id === entry.id) {
        delete endpoint.manual;
        this.dropIfOrphan(endpoint);
      }
    }
    this.emitIfChanged();
    return removed;
  }

  // ---- Sources -------------------------------------------------------------------------------------

  private async sweep(): Promise<void> {
    try {
      const probe = this.options.runnerProbe;
      if (probe !== false) {
        const results = await probeRunnerPorts({
          timeoutMs: 500,
          ...(typeof probe === 'object' ? probe : {}),
        });
        if (this.stopped) return;
        this.applyProbe(results);
      }
      const others = [...this.endpoints.values()].filter((endpoint) => !endpoint.probe);
      await mapBounded(others, 8, async (endpoint) => {
        const check = await this.check(endpoint);
        if (!this.stopped) endpoint.check = check;
      });
      if (!this.stopped) this.emitIfChanged();
    } catch (error) {
      this.warn(error);
    }
  }

  private applyProbe(results: PortProbeResult[]): void {
    const found = new Set<string>();
    for (const result of results) {
      const endpoint = this.endpoint(result.kind, result.host, result.port);
      endpoint.probe = result;
      found.add(endpoint.id);
    }
    for (const endpoint of [...this.endpoints.values()]) {
      if (endpoint.probe && !found.has(endpoint.id)) {
        delete endpoint.probe;
        // Still listed through Bonjour or by hand: it needs a check of its own now.
        if (endpoint.bonjour || endpoint.manual) endpoint.check = { state: 'unreachable', error: `nothing answers on ${hostPort(endpoint)}` };
        this.dropIfOrphan(endpoint);
      }
    }
  }

  private onBonjour(service: BonjourAppRevealService): void {
    try {
      const previous = this.bonjourIndex.get(service.fqdn);
      const endpoint = this.endpoint('appreveal', service.host, service.port);
      if (previous !== undefined && previous !== endpoint.id) {
        const old = this.endpoints.get(previous);
        if (old) {
          delete old.bonjour;
          this.dropIfOrphan(old);
        }
      }
      endpoint.bonjour = service;
      this.bonjourIndex.set(service.fqdn, endpoint.id);
      if (endpoint.probe) {
        this.emitIfChanged();
        return;
      }
      void this.check(endpoint).then((check) => {
        if (this.stopped) return;
        endpoint.check = check;
        this.emitIfChanged();
      });
    } catch (error) {
      this.warn(error);
    }
  }

  private onBonjourDown(service: BonjourAppRevealService): void {
    const id = this.bonjourIndex.get(service.fqdn);
    this.bonjourIndex.delete(service.fqdn);
    const endpoint = id === undefined ? undefined : this.endpoints.get(id);
    if (!endpoint) return;
    delete endpoint.bonjour;
    this.dropIfOrphan(endpoint);
    this.emitIfChanged();
  }

  private attachManual(entry: ManualEntry): Endpoint | undefined {
    const where = parseHostPort(entry.url);
    if (!where) return undefined;
    const endpoint = this.endpoint(entry.kind, where.host, where.port);
    endpoint.manual = entry;
    return endpoint;
  }

  private endpoint(kind: Kind, host: string, port: number): Endpoint {
    const normalizedHost = normalizeHost(host);
    const id = `${kind}:${normalizedHost.includes(':') ? `[${normalizedHost}]` : normalizedHost}:${port}`;
    let endpoint = this.endpoints.get(id);
    if (!endpoint) {
      endpoint = { id, kind, host: normalizedHost, port };
      this.endpoints.set(id, endpoint);
    }
    return endpoint;
  }

  private dropIfOrphan(endpoint: Endpoint): void {
    if (!endpoint.bonjour && !endpoint.probe && !endpoint.manual) this.endpoints.delete(endpoint.id);
  }

  /** GET /health of one endpoint; never rejects. */
  private async check(endpoint: Endpoint): Promise<Check> {
    const timeoutMs = this.options.healthTimeoutMs ?? 1_000;
    try {
      if (endpoint.kind === 'runner') {
        const result = await probeRunnerPort(endpoint.port, { host: endpoint.host, timeoutMs });
        if (!result) return { state: 'unreachable', error: `nothing listens on ${hostPort(endpoint)}` };
        if (result.kind !== 'runner') return { state: 'unreachable', error: 'an AppReveal server answers there, not a runner' };
        return pickCheck(result);
      }
      const outcome = await httpGet(endpoint.host, endpoint.port, '/health', { timeoutMs });
      if (outcome.kind === 'absent') return { state: 'unreachable', error: `nothing listens on ${hostPort(endpoint)}` };
      if (outcome.kind === 'failed') return { state: 'unreachable', error: outcome.reason };
      if (outcome.status !== 200) return { state: 'unreachable', error: `answered /health with HTTP ${outcome.status}` };
      let body: unknown;
      try {
        body = JSON.parse(outcome.body);
      } catch {
        return { state: 'unreachable', error: 'answered /health with something that is not JSON' };
      }
      const health = AppRevealHealthSchema.safeParse(body);
      if (!health.success) return { state: 'unreachable', error: 'answered /health without a status' };
      const bundleId = typeof health.data.bundleId === 'string' ? health.data.bundleId : undefined;
      const identity = { ...(bundleId ? { bundleId } : {}), ...(health.data.auth ? { auth: health.data.auth } : {}) };
      if (health.data.status !== 'ok') return { state: 'unreachable', error: `reports status "${health.data.status.slice(0, 80)}"`, ...identity };
      return { state: 'available', ...identity };
    } catch (error) {
      return { state: 'unreachable', error: error instanceof Error ? error.message : 'health check failed' };
    }
  }

  private emitIfChanged(): void {
    if (this.stopped) return;
    const list = this.list();
    const text = JSON.stringify(list);
    if (text === this.lastEmitted) return;
    this.lastEmitted = text;
    this.emit('changed', list);
  }

  private warn(error: unknown): void {
    // 'warning', not 'error': an EventEmitter throws an 'error' nobody listens to.
    this.emit('warning', error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * For one-shot callers (`parallax devices`): start, give Bonjour answers `settleMs` to arrive (start()
 * itself only waits for the port probe and the manual entries), list, stop.
 */
export async function discoverOnce(options: DiscoveryOptions & { settleMs?: number } = {}): Promise<{ devices: DiscoveredDevice[]; warnings: string[] }> {
  const { settleMs = 1_500, ...rest } = options;
  const discovery = new Discovery(rest);
  const warnings: string[] = [];
  discovery.on('warning', (error) => warnings.push(error.message));
  try {
    await discovery.start();
    if (rest.bonjour !== false && settleMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      await discovery.refresh();
    }
    return { devices: discovery.list(), warnings };
  } finally {
    await discovery.stop();
  }
}

function pickCheck(result: PortProbeResult): Check {
  return {
    state: result.state,
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(result.name !== undefined ? { name: result.name } : {}),
    ...(result.bundleId !== undefined ? { bundleId: result.bundleId } : {}),
    ...(result.auth !== undefined ? { auth: result.auth } : {}),
  };
}

function toDevice(endpoint: Endpoint): DiscoveredDevice | undefined {
  const status = endpoint.probe ? pickCheck(endpoint.probe) : endpoint.check;
  if (!status) return undefined;
  const sources = SOURCE_ORDER.filter((source) => endpoint[source] !== undefined);
  const txt = endpoint.bonjour?.txt;
  const bundleId = txt?.bundleId || status.bundleId;
  const where = hostPort(endpoint);
  const url = endpoint.manual?.url ?? (endpoint.kind === 'runner' ? `ws://${where}/ws` : `http://${where}/`);
  const name =
    endpoint.bonjour?.name ?? endpoint.manual?.name ?? status.name ?? (bundleId ? bundleId : `${endpoint.kind === 'runner' ? 'Runner' : 'AppReveal'} ${where}`);
  const auth = status.auth ?? txt?.auth;
  return {
    id: endpoint.id,
    kind: endpoint.kind,
    name,
    ...(bundleId ? { bundleId } : {}),
    url,
    state: status.state,
    ...(status.state === 'unreachable' && status.error !== undefined ? { error: status.error } : {}),
    sources,
    ...(txt ? { txt: { ...txt } } : {}),
    ...(endpoint.kind === 'appreveal' && auth ? { auth } : {}),
  };
}

function hostPort(endpoint: Pick<Endpoint, 'host' | 'port'>): string {
  return `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
}

function normalizeHost(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' ? '127.0.0.1' : bare;
}

function parseHostPort(url: string): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    const port = Number(parsed.port);
    if (!Number.isInteger(port) || port <= 0) return undefined;
    return { host: parsed.hostname, port };
  } catch {
    return undefined;
  }
}
