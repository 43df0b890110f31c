/**
 * The API implementation both hosts share. Whatever delivered a call (IPC or the web host's WebSocket),
 * its params are decoded here with the method's zod schema before anything runs, and every failure
 * comes back as a typed ApiError instead of an exception crossing the host.
 */
import type { z } from 'zod';
import { apiEvents, apiMethods, isApiMethod, type ApiError, type ApiEvent, type ApiEventPayload, type ApiMethod, type ApiOutput } from '@shared/api/api';
import { AppRevealError } from '@main/appreveal/client';
import { RunnerError } from '@main/runner/client';
import type { Discovery } from '@main/discovery/index';
import { AppRevealConnection } from '@main/appreveal/connection';
import { APPREVEAL_NETWORK_DETAIL_TOOL } from '@shared/protocol/appreveal-tools';
import { maskCapturedTraffic } from '@shared/trace/redact';
import { DeviceNotFoundError, WithheldTextError, type DeviceManager } from '@main/devices/manager';
import { DeviceBusyError } from '@main/connection/gate';
import { CompareError } from '@main/devices/compare';
import { Comparisons, UnknownComparisonError } from '@main/devices/comparisons';
import { RecordingStateError, type SessionRecording } from '@main/trace/recording';
import { ReplayBusyError, ReplayRunner } from '@main/trace/replay-runner';
import { ReplayRangeError, ReplayVariablesError } from '@main/trace/replay';
import { TraceEditError } from '@shared/trace/trace-edit';
import { TraceOpenError } from '@main/trace/index';
import {
  exportTraceMaestro,
  exportTraceXcuiTest,
  openedCopiesDir,
  storedFrameOf,
  openTraceView,
  receiveTrace,
  recentTraces,
  traceResource,
} from '@main/trace/view';
import { TraceAccess } from '@main/trace/access';
import { tracesDir } from '@main/paths';
import { basename, dirname, relative, isAbsolute } from 'node:path';
import { editedBaseName, saveEditedTrace } from '@main/trace/edit';
import { DemoAdmin, DemoAdminError } from '@main/devices/demo-admin';
import { RunnerConnection } from '@main/devices/runner-connection';
import { DeviceProfiles, DeviceProfileError } from '@main/a11y/profiles';
import { LiveAudits } from '@main/a11y/live-audit';
import { FrameAudits, NothingToAuditError } from '@main/a11y/frame-audits';
import { AuditWorkerError } from '@main/a11y/off-thread';

export type HostKind = 'electron' | 'web';

export type ApiResult = { ok: true; result: unknown } | { ok: false; error: ApiError };
export type ApiEventListener = <E extends ApiEvent>(event: E, payload: ApiEventPayload<E>) => void;

export interface ApiService {
  handle(method: string, params: unknown): Promise<ApiResult>;
  subscribe(listener: ApiEventListener): () => void;
  /** Tells every renderer of something the host did by itself (the Electron menu opened a trace). */
  emit<E extends ApiEvent>(event: E, payload: ApiEventPayload<E>): void;
  /** A trace file's bytes from a browser (the web host's upload), answered as `trace.open` would be. */
  receiveTrace(name: string, body: AsyncIterable<Uint8Array>): Promise<ApiResult>;
  /** A file the user chose in the host's own UI (dialog, drop): the page may then open it (docs/rules.md#r-path-01). */
  allowTrace(path: string): void;
}

type Handlers = { [M in ApiMethod]: (input: z.output<(typeof apiMethods)[M]['input']>) => Promise<ApiOutput<M>> | ApiOutput<M> };

export function createApiService(
  {
    manager,
    discovery,
    recording,
    profiles = new DeviceProfiles(),
  }: { manager: DeviceManager; discovery?: Discovery; recording?: SessionRecording; profiles?: DeviceProfiles },
  options: {
    host: HostKind;
    version: string;
    replay?: { settleMs?: number };
    /** Shows a file in the system's file manager (Electron's shell.showItemInFolder); the web host has none. */
    reveal?: (path: string) => void;
  },
): ApiService {
  const replayOptions = options.replay ?? {};
  const listeners = new Set<ApiEventListener>();
  const emit = <E extends ApiEvent>(event: E, payload: ApiEventPayload<E>) => {
    for (const listener of listeners) listener(event, payload);
  };
  const comparisons = new Comparisons(manager);
  const demoAdmin = new DemoAdmin();
  const audits = new LiveAudits(manager, profiles);
  const frameAudits = new FrameAudits(audits, storedFrameOf);
  // Paths from a page are only the traces the user opened or the ones Parallax keeps (R-PATH-01).
  const recordingsDirs = () => [tracesDir(), ...(recording ? [recording.dir] : [])];
  const access = new TraceAccess({ read: () => [...recordingsDirs(), openedCopiesDir()], recover: recordingsDirs });
  const replays = new ReplayRunner(
    manager,
    { onStep: (progress) => emit('trace.replayStep', progress), onEnded: (ended) => emit('trace.replayEnded', ended) },
    replayOptions,
  );

  const handlers: Handlers = {
    'app.info': () => ({ version: options.version, host: options.host }),
    'devices.list': () => manager.list(),
    'devices.connect': (input) => manager.connect(input.url, input.name ? { name: input.name } : {}),
    'devices.disconnect': async (input) => {
      await manager.disconnect(input.deviceId);
      return { ok: true as const };
    },
    'device.observe': ({ deviceId, ...options }) => manager.observe(deviceId, options),
    'device.screenshot': ({ deviceId }) => manager.screenshot(deviceId),
    'device.act': ({ deviceId, action, xctestOnly, clientRef }) =>
      manager.act(deviceId, action, { ...(xctestOnly ? { xctestOnly } : {}), ...(clientRef !== undefined ? { clientRef } : {}) }),
    'device.history': ({ deviceId }) => manager.history(deviceId),
    'device.navigateBack': ({ deviceId }) => {
      appRevealOf(deviceId, 'a back action');
      // Without navigate_back the action fails closed (appreveal_unknown_tool) with nothing sent.
      return manager.act(deviceId, { action: 'back' });
    },
    'device.webControls': ({ deviceId }) => {
      const connection = appRevealOf(deviceId, 'web view tools');
      if (!connection.client.has('get_dom_interactive')) throw new NotOfferedError('this app did not register get_dom_interactive');
      return connection.webControls();
    },
    'device.appState': async ({ deviceId }) => {
      const connection = appRevealOf(deviceId, 'app state');
      await connection.waitUntilConnected();
      if (connection.client.readTools.length === 0) throw new NotOfferedError('this app registered none of the read-only tools (get_state, get_logs, …)');
      return connection.appState();
    },
    'device.networkCall': async ({ deviceId, id }) => {
      const connection = appRevealOf(deviceId, 'network call details');
      await connection.waitUntilConnected();
      if (!connection.client.has(APPREVEAL_NETWORK_DETAIL_TOOL)) throw new NotOfferedError(`this app did not register ${APPREVEAL_NETWORK_DETAIL_TOOL}`);
      // Masked here so neither the panel nor the API's JSON shows a password the app sent (R-AR-32).
      return { id, value: maskCapturedTraffic(await connection.networkCall(id)) };
    },
    'device.perfMode': ({ deviceId, enabled, windowMs }) => {
      const connection = manager.connectionOf(deviceId);
      if (!(connection instanceof RunnerConnection)) throw new NotOfferedError(`perf mode: ${deviceId} is a ${connection.kind} device, not a runner`);
      return connection.perf.set(enabled, windowMs);
    },
    'device.perfSamples': ({ deviceId }) => {
      const connection = manager.connectionOf(deviceId);
      if (!(connection instanceof RunnerConnection)) throw new NotOfferedError(`performance: ${deviceId} is a ${connection.kind} device, not a runner`);
      return connection.perf.series();
    },
    'device.webAct': ({ deviceId, tool, selector, text, secret }) => {
      appRevealOf(deviceId, 'web view tools');
      return manager.act(deviceId, { action: 'webTool', tool, selector, ...(text !== undefined ? { text } : {}), ...(secret ? { secret } : {}) });
    },
    'device.compare': ({ deviceId, strategy }) => comparisons.compare(deviceId, strategy ? { strategy } : {}),
    'recording.saveComparison': async ({ comparisonId }) => {
      const { deviceId, comparison } = comparisons.get(comparisonId);
      return notifyRecording(await requireRecording().saveComparison(deviceId, comparison));
    },
    'recording.start': async ({ deviceId }) => notifyRecording(await requireRecording().start(deviceId)),
    'recording.stop': async () => notifyRecording(await requireRecording().stop()),
    'recording.status': () => requireRecording().status(),
    'recording.unfinished': async () =>
      (await requireRecording().unfinished()).map((trace) => ({
        folder: trace.folder,
        actions: trace.actions,
        ...(trace.lastEventTime !== undefined ? { lastEventTime: trace.lastEventTime } : {}),
        ...(trace.manifest ? { deviceName: trace.manifest.device.name } : {}),
      })),
    'recording.recover': async ({ folder }) => {
      const report = await requireRecording().recover(access.unfinished(folder));
      return { path: report.outFile, droppedLines: report.droppedLines };
    },
    'trace.open': ({ path }) => openTraceView(access.readable(path)),
    'trace.resource': ({ path, ref, as }) => traceResource(access.readable(path), ref, as),
    'trace.recent': () => recentTraces(requireRecording().dir),
    'trace.exportMaestro': ({ path }) => exportTraceMaestro(access.readable(path)),
    'trace.exportXcuiTest': ({ path }) => exportTraceXcuiTest(access.readable(path)),
    'trace.replay': ({ path, deviceId, stopOnDivergence, variables, relaunchFirst, fromCallId, only }) =>
      replays.run(access.readable(path), deviceId, stopOnDivergence, variables, relaunchFirst === true, { fromCallId, only }),
    'trace.saveEdited': async ({ path, edits }) => {
      const original = access.readable(path);
      // An upload's copy is Parallax's own and may be pruned: its edited copy goes with the recordings.
      const uploaded = isInside(original, openedCopiesDir());
      const saved = await saveEditedTrace(
        original,
        edits,
        uploaded ? { dir: requireRecording().dir, name: editedBaseName(basename(original).replace(/^[0-9a-f-]{36}-/, '')) } : {},
      );
      access.choose(saved);
      return openTraceView(saved);
    },
    'trace.replayFrame': ({ path, callId, when }) => replays.frame(access.readable(path), callId, when),
    'trace.stopReplay': () => ({ stopping: replays.stop() }),
    'trace.reveal': ({ path }) => {
      // Only a file the page may open (one Parallax wrote or the user chose) is shown (R-PATH-01).
      const file = access.readable(path);
      if (!options.reveal) return { shown: false, folder: dirname(file) };
      options.reveal(file);
      return { shown: true, folder: dirname(file) };
    },
    'demo.state': ({ deviceId }) => demoAdmin.state(demoUrlOf(deviceId)),
    'demo.setScreen': ({ deviceId, screen }) => demoAdmin.setScreen(demoUrlOf(deviceId), screen),
    'demo.setFaults': ({ deviceId, add, remove }) =>
      demoAdmin.setFaults(demoUrlOf(deviceId), { ...(add?.length ? { add } : {}), ...(remove?.length ? { remove } : {}) }),
    'device.audit': ({ deviceId }) => audits.audit(deviceId),
    'device.muteFinding': ({ deviceId, fingerprint, muted }) => audits.mute(deviceId, fingerprint, muted),
    'trace.audit': async ({ path, observationRef, screenshotRef }) => ({
      audit: await frameAudits.storedFrame(access.readable(path), observationRef, screenshotRef),
    }),
    'a11y.compare': ({ recorded, compared }) => {
      // A trace side is read only from a trace the page may open (R-PATH-01).
      const allowed = (s: typeof recorded) => (s.from === 'trace' ? { ...s, path: access.readable(s.path) } : s);
      return frameAudits.compare(allowed(recorded), allowed(compared));
    },
    'discovery.list': () => discovery?.list() ?? [],
    'discovery.addManual': async ({ url, name }) => {
      if (!discovery) return [];
      await discovery.addManual({ url, ...(name ? { name } : {}) });
      return discovery.list();
    },
  };

  function isInside(file: string, dir: string): boolean {
    const rel = relative(dir, file);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  }

  function appRevealOf(deviceId: string, what: string): AppRevealConnection {
    const connection = manager.connectionOf(deviceId);
    if (!(connection instanceof AppRevealConnection))
      throw new NotOfferedError(`${what}: only an AppReveal device offers them, and ${deviceId} is a ${connection.kind} device`);
    return connection;
  }

  /** A runner device's URL, where the demo's admin endpoint may be; any other device has no demo controls. */
  function demoUrlOf(deviceId: string): string {
    const connection = manager.connectionOf(deviceId);
    if (!(connection instanceof RunnerConnection)) throw new NotOfferedError(`demo controls: ${deviceId} is a ${connection.kind} device, not the demo`);
    return connection.url;
  }

  function requireRecording(): SessionRecording {
    if (!recording) throw new Error('recording is not available in this host');
    return recording;
  }
  function notifyRecording<T extends ApiEventPayload<'recording.changed'>>(status: T): T {
    emit('recording.changed', status);
    return status;
  }

  return {
    emit,
    allowTrace: (path) => access.choose(path),
    async receiveTrace(name, body) {
      try {
        return { ok: true, result: await receiveTrace(name, body) };
      } catch (error) {
        return { ok: false, error: toApiError(error) };
      }
    },
    async handle(method, params) {
      if (!isApiMethod(method)) return { ok: false, error: { code: 'unknown_method', message: `unknown method ${method}` } };
      const decoded = apiMethods[method].input.safeParse(params ?? {});
      if (!decoded.success) {
        const issue = decoded.error.issues[0];
        const field = issue?.path.join('.') || 'params';
        return { ok: false, error: { code: 'bad_request', message: `${method}: ${field}: ${issue?.message ?? 'invalid'}` } };
      }
      try {
        const handler = handlers[method] as (input: unknown) => Promise<unknown> | unknown;
        return { ok: true, result: await handler(decoded.data) };
      } catch (error) {
        return { ok: false, error: toApiError(error) };
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      const onDevices = (devices: ApiEventPayload<'devices.changed'>['devices']) =>
        listener('devices.changed', apiEvents['devices.changed'].parse({ devices }));
      const onFrame = (frame: ApiEventPayload<'device.frame'>) => listener('device.frame', frame);
      const onAction = (step: ApiEventPayload<'device.action'>) => listener('device.action', step);
      const onProgress = (progress: ApiEventPayload<'device.actionProgress'>) => listener('device.actionProgress', progress);
      const onPerf = (event: ApiEventPayload<'device.perf'>) => listener('device.perf', event);
      const onDiscovered = (devices: ApiEventPayload<'discovery.changed'>['devices']) => listener('discovery.changed', { devices });
      manager.on('devicesChanged', onDevices);
      manager.on('frame', onFrame);
      manager.on('action', onAction);
      manager.on('actionProgress', onProgress);
      manager.on('perf', onPerf);
      const onRecording = (status: ApiEventPayload<'recording.changed'>) => listener('recording.changed', status);
      recording?.on('changed', onRecording);
      discovery?.on('changed', onDiscovered);
      return () => {
        listeners.delete(listener);
        manager.off('devicesChanged', onDevices);
        manager.off('frame', onFrame);
        manager.off('action', onAction);
        manager.off('actionProgress', onProgress);
        manager.off('perf', onPerf);
        recording?.off('changed', onRecording);
        discovery?.off('changed', onDiscovered);
      };
    },
  };
}

/** A method this device does not offer (a runner asked for an AppReveal tool). */
export class NotOfferedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotOfferedError';
  }
}

function toApiError(error: unknown): ApiError {
  if (error instanceof NotOfferedError) return { code: 'not_offered', message: error.message };
  if (error instanceof DemoAdminError) return { code: error.code === 'not_offered' ? 'not_offered' : `demo_${error.code}`, message: error.message };
  if (error instanceof CompareError) return { code: 'compare_failed', message: error.message };
  if (error instanceof UnknownComparisonError) return { code: 'not_found', message: error.message };
  if (error instanceof ReplayBusyError || error instanceof DeviceBusyError) return { code: 'busy', message: error.message };
  if (error instanceof RecordingStateError) return { code: 'recording_state', message: error.message };
  if (error instanceof ReplayVariablesError) return { code: 'replay_variables', message: error.message };
  if (error instanceof ReplayRangeError) return { code: 'bad_request', message: error.message };
  if (error instanceof TraceEditError) return { code: 'trace_edit', message: error.message };
  if (error instanceof DeviceNotFoundError) return { code: 'not_found', message: error.message };
  if (error instanceof WithheldTextError) return { code: 'bad_request', message: error.message };
  if (error instanceof DeviceProfileError) return { code: 'bad_request', message: error.message };
  if (error instanceof NothingToAuditError) return { code: 'nothing_to_audit', message: error.message };
  if (error instanceof AuditWorkerError) return { code: 'audit_failed', message: error.message };
  if (error instanceof AppRevealError) return { code: `appreveal_${error.code}`, message: error.message };
  if (error instanceof TraceOpenError) return { code: `trace_${error.code}`, message: error.message };
  if (error instanceof RunnerError) return { code: `runner_${error.code}`, message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
