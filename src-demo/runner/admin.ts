/**
 * The demo device's admin endpoint, under /admin on the runner's port. Test and demo controls only:
 *   GET  /admin/stats     screen, faults, per-command request counts, SDK route counts, frame context,
 *                         capture identity, web view bridge state, busy (commands and SDK requests running now),
 *                         settling (a screen change not read yet)
 *   GET  /admin/reads     {held}: sliced reads stopped so far at the gate of the fault xctest-read-hold
 *   GET  /admin/faults    {faults, known: [{name, help, value}]} (docs/protocol.md#p-demo-admin)
 *   POST /admin/faults    {faults: [...]} replaces the list; {add: [...]} / {remove: [...]} edit it;
 *                         answers {faults} once the app follows (a web view reloaded, the SDK gone, ...)
 *   GET  /admin/screen    {screen, screens}
 *   POST /admin/screen    {screen, nodes?}; nodes sizes the heavy screen (docs/rules.md#r-perf-01)
 *   GET  /admin/variants  {variants, known}: the app as a designer changed it (phone/variants.ts)
 *   POST /admin/variants  {variants: [...]} replaces the list; answers {variants} once the screen shows them
 *   POST /admin/reset     relaunches the app (fresh screens and documents) once no action runs; {faults?: [...]} replaces the
 *                         faults first, {variants?: [...]} the variants; request counts start again from zero
 * Every answer is JSON; a bad request is 400 {error}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { validateWith } from '@shared/protocol/errors';
import { isScreenName, SCREENS } from '@demo/phone/app-page';
import type { DemoDevice } from '@demo/device/demo-device';
import { FAULT_NAMES, FAULTS } from '@demo/phone/faults';
import type { DemoFaultsAnswer } from '@shared/protocol/demo-admin';
import { parseVariants, VARIANT_NAMES, VARIANTS } from '@demo/phone/variants';

const MAX_BODY = 64 * 1024;

const FaultsChangeSchema = z
  .object({
    faults: z.array(z.string()).optional(),
    add: z.array(z.string()).optional(),
    remove: z.array(z.string()).optional(),
  })
  .refine((b) => b.faults !== undefined || b.add !== undefined || b.remove !== undefined, { message: 'expected faults, add or remove' });
const ScreenChangeSchema = z.object({ screen: z.string(), nodes: z.number().int().optional() });
const ResetSchema = z.object({ faults: z.array(z.string()).optional(), variants: z.array(z.string()).optional(), screen: z.string().optional() });
const VariantsChangeSchema = z.object({ variants: z.array(z.string()) });

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return { ok: false, error: 'body too large' };
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: 'body is not JSON' };
  }
}

export async function stats(device: DemoDevice): Promise<Record<string, unknown>> {
  const frame = await device.monitor.current();
  return {
    screen: frame.capture.native.screen,
    faults: device.faults.list(),
    variants: device.variants(),
    requests: { ...device.runnerRequests },
    sdkRequests: { ...device.sdkServer.requests },
    frameContext: frame.token,
    generation: frame.generation,
    captureIdentity: device.bridge.current?.toString() ?? null,
    webViews: device.web.describe(),
    webPosts: { ...device.web.stats },
    picture: { ...device.app.picture.stats },
    sdkUrl: device.faults.has('sdk-absent') ? null : device.sdkServer.url,
    uptimeMs: Date.now() - device.startedAt,
    // Work still running on the device (a command, an SDK request, a bridge action), for a test to wait out
    // what a slow fault left behind instead of sleeping. This stats read itself is no runner command.
    busy: device.commandsInFlight + device.sdkServer.inFlight + (device.bridge.inFlight ? 1 : 0),
    // A change the page announced that is not read yet: the frame above is about to move.
    settling: device.monitor.dirty,
  };
}

/** Changes wait for the one before them (docs/rules.md#r-peer-02): a reset and a screen change at once queue, never 500. */
const changes = new WeakMap<DemoDevice, Promise<unknown>>();

/**
 * Handles one /admin request; never throws. The path carries the device's admin token,
 * `/admin/<token>/stats` (docs/rules.md#r-peer-02); without it the answer is 401.
 */
export async function handleAdmin(device: DemoDevice, req: IncomingMessage, res: ServerResponse, tokenPath: string, token: string): Promise<void> {
  const prefix = `/admin/${token}`;
  if (tokenPath !== prefix && !tokenPath.startsWith(`${prefix}/`))
    return send(res, 401, { error: 'the admin endpoint needs its token: use the adminUrl the demo device printed' });
  const path = `/admin${tokenPath.slice(prefix.length)}`;
  if ((req.method ?? 'GET') === 'GET') return handleAdminNow(device, req, res, path);
  const turn = (changes.get(device) ?? Promise.resolve()).then(() => handleAdminNow(device, req, res, path));
  changes.set(
    device,
    turn.catch(() => undefined),
  );
  return turn;
}

async function handleAdminNow(device: DemoDevice, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  try {
    const method = req.method ?? 'GET';
    if (path === '/admin' || path === '/admin/' || path === '/admin/stats') {
      if (method !== 'GET') return send(res, 405, { error: 'use GET' });
      return send(res, 200, await stats(device));
    }
    if (path === '/admin/reads') {
      // Answers at once, even while a read is held at the gate (stats waits for the screen's current frame).
      if (method !== 'GET') return send(res, 405, { error: 'use GET' });
      return send(res, 200, { held: await device.app.readsHeld() });
    }
    if (path === '/admin/faults') {
      if (method === 'GET') {
        const known = FAULT_NAMES.map((name) => ({ name, help: FAULTS[name].help, value: FAULTS[name].value }));
        return send(res, 200, { faults: device.faults.list(), known } satisfies DemoFaultsAnswer);
      }
      if (method !== 'POST') return send(res, 405, { error: 'use GET or POST' });
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { error: body.error });
      const change = validateWith(FaultsChangeSchema, body.value);
      if (!change.ok) return send(res, 400, { error: change.error.message });
      try {
        const edit: { replace?: string[]; add?: string[]; remove?: string[] } = {};
        if (change.value.faults) edit.replace = change.value.faults;
        if (change.value.add) edit.add = change.value.add;
        if (change.value.remove) edit.remove = change.value.remove;
        device.faults.apply(edit);
      } catch (error) {
        return send(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
      await device.settled();
      return send(res, 200, { faults: device.faults.list() });
    }
    if (path === '/admin/screen') {
      if (method === 'GET') return send(res, 200, { screen: (await device.monitor.current()).capture.native.screen, screens: SCREENS });
      if (method !== 'POST') return send(res, 405, { error: 'use GET or POST' });
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { error: body.error });
      const change = validateWith(ScreenChangeSchema, body.value);
      if (!change.ok) return send(res, 400, { error: change.error.message });
      if (!isScreenName(change.value.screen)) return send(res, 400, { error: `unknown screen "${change.value.screen}" (screens: ${SCREENS.join(', ')})` });
      try {
        await device.setScreen(change.value.screen, { heavyNodes: change.value.nodes });
      } catch (error) {
        if (change.value.nodes !== undefined) return send(res, 400, { error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      return send(res, 200, { screen: change.value.screen });
    }
    if (path === '/admin/variants') {
      if (method === 'GET') return send(res, 200, { variants: device.variants(), known: VARIANT_NAMES.map((name) => ({ name, help: VARIANTS[name].help })) });
      if (method !== 'POST') return send(res, 405, { error: 'use GET or POST' });
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { error: body.error });
      const change = validateWith(VariantsChangeSchema, body.value);
      if (!change.ok) return send(res, 400, { error: change.error.message });
      try {
        parseVariants(change.value.variants);
      } catch (error) {
        return send(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
      return send(res, 200, { variants: await device.setVariants(change.value.variants) });
    }
    if (path === '/admin/reset') {
      if (method !== 'POST') return send(res, 405, { error: 'use POST' });
      const body = await readJson(req);
      if (!body.ok) return send(res, 400, { error: body.error });
      const reset = validateWith(ResetSchema, body.value);
      if (!reset.ok) return send(res, 400, { error: reset.error.message });
      const screen = reset.value.screen ?? 'login';
      if (!isScreenName(screen)) return send(res, 400, { error: `unknown screen "${screen}"` });
      try {
        if (reset.value.variants) parseVariants(reset.value.variants);
        if (reset.value.faults) device.faults.apply({ replace: reset.value.faults });
      } catch (error) {
        return send(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
      // A fresh start: an action its caller gave up on (its budget ran out) finishes first.
      await Promise.all([device.settled(), device.bridge.idle()]);
      if (reset.value.variants) await device.setVariants(reset.value.variants);
      await device.relaunch(screen);
      device.resetStats();
      return send(res, 200, { screen, faults: device.faults.list(), variants: device.variants() });
    }
    return send(res, 404, { error: 'not found' });
  } catch (error) {
    return send(res, 500, { error: error instanceof Error ? error.message : String(error) });
  }
}
