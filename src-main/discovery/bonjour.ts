/**
 * Bonjour browsing of `_appreveal._tcp` (docs/protocol.md#p-ar-bonjour, docs/rules.md#r-ar-17) with live
 * up/down events.
 *
 * Where to connect: the A/AAAA records when the responder sent them, else the address the answer came
 * from, else the SRV target when it is an IP literal, else 127.0.0.1. Inside a private network namespace
 * (the tests) and for loopback-only advertisers no address records exist at all (bonjour-service skips
 * internal interfaces), hence the fallbacks. An address that belongs to this machine becomes 127.0.0.1:
 * an app bound to loopback only (the demo device) is reachable there and not on the LAN address.
 */
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Bonjour, type Browser, type Service } from 'bonjour-service';
import { APPREVEAL_SERVICE_TYPE } from '@shared/protocol/appreveal';

export interface BonjourAppRevealService {
  /** The service's full DNS-SD name: stable identity across updates. */
  fqdn: string;
  /** Instance name, e.g. AppReveal-dev-parallax-demo. */
  name: string;
  /** Where to connect. */
  host: string;
  port: number;
  /** The SRV target as advertised (a host name), for display. */
  target: string;
  txt: Record<string, string>;
}

interface BrowserEvents {
  up: [service: BonjourAppRevealService];
  down: [service: BonjourAppRevealService];
  /** TXT or SRV changed for a service already up. */
  update: [service: BonjourAppRevealService];
  warning: [error: Error];
}

export interface AppRevealBrowserOptions {
  /** How often to ask the network again, in ms (an answer that was missed comes with the next one). */
  queryIntervalMs?: number;
}

export class AppRevealBrowser extends EventEmitter<BrowserEvents> {
  private bonjour: Bonjour | undefined;
  private browser: Browser | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly known = new Map<string, BonjourAppRevealService>();

  constructor(private readonly options: AppRevealBrowserOptions = {}) {
    super();
  }

  /** Starts browsing. Never throws: a socket problem is reported as a `warning`. */
  start(): void {
    if (this.bonjour) return;
    try {
      // bonjour-service throws from its default error callback, and the multicast socket's 'error'
      // event has no listener of its own: both would crash the process over a network hiccup.
      const bonjour = new Bonjour({}, (error: unknown) => this.warn(error));
      const mdns = (bonjour as unknown as { server?: { mdns?: NodeJS.EventEmitter } }).server?.mdns;
      mdns?.on('error', (error: unknown) => this.warn(error));
      mdns?.on('warning', () => undefined);
      this.bonjour = bonjour;
      const browser = bonjour.find({ type: APPREVEAL_SERVICE_TYPE, protocol: 'tcp' });
      this.browser = browser;
      browser.on('up', (service) => this.onUp(service));
      browser.on('down', (service) => this.onDown(service));
      browser.on('txt-update', (service) => this.onUpdate(service));
      browser.on('srv-update', (service) => this.onUpdate(service));
      this.timer = setInterval(() => {
        try {
          browser.update();
        } catch (error) {
          this.warn(error);
        }
      }, this.options.queryIntervalMs ?? 10_000);
      this.timer.unref();
    } catch (error) {
      this.warn(error);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const bonjour = this.bonjour;
    this.bonjour = undefined;
    try {
      this.browser?.stop();
    } catch {
      // already stopped
    }
    this.browser = undefined;
    this.known.clear();
    if (!bonjour) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      try {
        bonjour.destroy(() => {
          clearTimeout(timer);
          resolve();
        });
      } catch {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  /** Ask the network now (the periodic query does this anyway). */
  query(): void {
    try {
      this.browser?.update();
    } catch (error) {
      this.warn(error);
    }
  }

  services(): BonjourAppRevealService[] {
    return [...this.known.values()];
  }

  private onUp(service: Service): void {
    const described = describeService(service);
    if (!described) return;
    this.known.set(described.fqdn, described);
    this.emit('up', described);
  }

  private onUpdate(service: Service): void {
    const described = describeService(service);
    if (!described) return;
    this.known.set(described.fqdn, described);
    this.emit('update', described);
  }

  private onDown(service: Service): void {
    const fqdn = typeof service.fqdn === 'string' ? service.fqdn : '';
    const known = this.known.get(fqdn) ?? describeService(service);
    if (!known) return;
    this.known.delete(known.fqdn);
    this.emit('down', known);
  }

  private warn(error: unknown): void {
    this.emit('warning', error instanceof Error ? error : new Error(String(error)));
  }
}

/** A bonjour-service record as a plain description; undefined when it lacks a name or port. */
export function describeService(service: Service): BonjourAppRevealService | undefined {
  if (typeof service.name !== 'string' || typeof service.port !== 'number' || service.port <= 0) return undefined;
  const fqdn = typeof service.fqdn === 'string' && service.fqdn !== '' ? service.fqdn : `${service.name}._${APPREVEAL_SERVICE_TYPE}._tcp.local`;
  return {
    fqdn,
    name: service.name,
    host: resolveServiceHost(service),
    port: service.port,
    target: typeof service.host === 'string' ? service.host : '',
    txt: normalizeTxt(service.txt),
  };
}

export function resolveServiceHost(service: Pick<Service, 'addresses' | 'referer' | 'host'>): string {
  const local = localAddresses();
  const addresses = (service.addresses ?? []).filter((a) => typeof a === 'string' && isIP(a) !== 0);
  const ipv4 = addresses.find((a) => isIP(a) === 4);
  // A link-local IPv6 address needs a zone id to be usable, which an A/AAAA record does not carry.
  const ipv6 = addresses.find((a) => isIP(a) === 6 && !a.toLowerCase().startsWith('fe80'));
  const referer = service.referer?.address;
  const target = typeof service.host === 'string' ? service.host.replace(/\.$/, '') : '';
  const candidates = [ipv4, ipv6, referer, isIP(target) !== 0 ? target : undefined];
  for (const candidate of candidates) {
    if (candidate === undefined || isIP(candidate) === 0) continue;
    if (local.has(candidate) || candidate.startsWith('127.') || candidate === '::1') return '127.0.0.1';
    return candidate;
  }
  return '127.0.0.1';
}

function localAddresses(): Set<string> {
  const set = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) set.add(info.address);
  }
  return set;
}

function normalizeTxt(raw: unknown): Record<string, string> {
  const txt: Record<string, string> = {};
  if (typeof raw !== 'object' || raw === null) return txt;
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'string') txt[key] = value;
    else if (Buffer.isBuffer(value)) txt[key] = value.toString('utf8');
    // A key without "=" decodes to true: present, no value.
    else if (value === true) txt[key] = '';
    else if (typeof value === 'number') txt[key] = String(value);
  }
  return txt;
}
