/**
 * The demo device and the host's services over it, as the API-level integration tests start them: one
 * copy of the start, the stop and the call that turns an API error into a thrown one naming the method.
 * Call it at a test file's top level: it registers that file's beforeAll and afterAll.
 */
import { afterAll, beforeAll } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle, type StartDemoDeviceOptions } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { parseAppRevealSessionUrl } from '@shared/protocol/appreveal';
import { rawTool } from './appreveal-raw';

export interface HostOverDemo {
  readonly demo: DemoDeviceHandle;
  readonly services: AppServices;
  /** The API's answer as it came (ok or a typed error), for a test about a refusal. */
  handle(method: string, params: unknown): ReturnType<AppServices['api']['handle']>;
  /** The API's result; an error throws, naming the method, its code and its message. */
  call<T = Record<string, unknown>>(method: string, params: unknown): Promise<T>;
  /** One tool of the demo's AppReveal app over its real port, as AppReveal's own CLI calls it (not through Parallax). */
  rawTool(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export function useHostOverDemo(options: { demo?: StartDemoDeviceOptions; tokens?: readonly string[] } = {}): HostOverDemo {
  let demo: DemoDeviceHandle | undefined;
  let services: AppServices | undefined;
  beforeAll(async () => {
    demo = await startDemoDevice({ port: 0, ...options.demo });
    services = await startAppServices('web', () => [...(options.tokens ?? [])]);
  }, 60_000);
  afterAll(async () => {
    await services?.close();
    await demo?.close();
  });
  const started = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${what} is not started: use it inside a test or a hook`);
    return value;
  };
  const host: HostOverDemo = {
    get demo() {
      return started('demo device', demo);
    },
    get services() {
      return started('host services', services);
    },
    handle: (method, params) => host.services.api.handle(method, params),
    async call<T>(method: string, params: unknown): Promise<T> {
      const reply = await host.handle(method, params);
      if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
      return reply.result as T;
    },
    rawTool: (name, args = {}) => rawTool(parseAppRevealSessionUrl(host.demo.appRevealUrl ?? ''), name, args),
  };
  return host;
}
