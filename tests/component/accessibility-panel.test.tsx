// @vitest-environment jsdom
/**
 * The live Accessibility panel (docs/rules.md#r-a11y-17) as a QA engineer uses it, on the demo's checkout
 * screen audited by the real audit (tests/fixtures/demo-observations): the findings are listed by severity,
 * then kind; picking one selects its element (and its row in the tree carries the finding's mark); a
 * finding muted stays listed, marked and counted as muted, and the host is told to keep it; a mute the
 * host refuses is said and not shown as muted. The host's side is a fake transport answering
 * `device.audit` with the audit of the fixture and keeping mutes as the host does (per device).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMemo, useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditTree } from '@shared/a11y';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { indexTree } from '@shared/model/tree';
import { ViewHierarchySchema } from '@shared/protocol/runner';
import { AccessibilityPanel } from '@renderer/components/AccessibilityPanel';
import { findingMarks, findingsByNode } from '@renderer/components/AccessibilityMarks';
import { Tree } from '@renderer/components/Tree';
import { ApiContext } from '@renderer/api/queries';
import { ApiCallError, type Transport } from '@renderer/api/transport';
import { useDeviceAudit } from '@renderer/api/accessibility';
import { useAccessibility } from '@renderer/state/accessibility';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { createInspectorStore, type InspectorStore } from '@renderer/state/store';
import { layOut } from '../support/dom-layout';

const fixture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo-observations', 'checkout.json'), 'utf8'));
const hierarchy = ViewHierarchySchema.parse(fixture);
const root = hierarchy.hierarchy!;
const tree = indexTree(root);
const audit = auditTree({ root, screen: { width: 402, height: 874 }, safeArea: fixture.insets.safeArea });
const RECEIVED_AT = 1_700_000_000_000;
const device: DeviceSummary = { id: 'device-1', kind: 'demo', name: 'Demo', url: 'ws://127.0.0.1:1/ws', state: 'connected', supportedCommands: [] };
const frame = { deviceId: 'device-1', observation: { viewHierarchy: hierarchy }, screenshot: null, receivedAt: RECEIVED_AT } as unknown as Frame;

/** The host as the panel sees it: the audit of the frame, and mutes kept per device (or refused). */
function fakeHost(options: { refuseMutes?: boolean } = {}) {
  const muted: string[] = [];
  const calls: Array<{ method: string; input: unknown }> = [];
  const transport = {
    kind: 'websocket',
    call: async (method: string, input: Record<string, unknown>) => {
      calls.push({ method, input });
      if (method === 'device.audit') return { receivedAt: RECEIVED_AT, audit, muted: [...muted] };
      // The compare's choice of another device (R-A11Y-21): only this one is connected.
      if (method === 'devices.list') return [device];
      if (method === 'device.muteFinding') {
        if (options.refuseMutes) throw new ApiCallError('internal', 'the settings file is read-only', method);
        const at = muted.indexOf(input['fingerprint'] as string);
        if (at >= 0) muted.splice(at, 1);
        if (input['muted']) muted.push(input['fingerprint'] as string);
        return { muted: [...muted] };
      }
      throw new Error(`unexpected ${method}`);
    },
    on: () => () => {},
  } as unknown as Transport;
  return { transport, calls, muted };
}

function Harness() {
  const query = useDeviceAudit(device, frame);
  const focused = useAccessibility((s) => s.focused);
  const marks = useMemo(() => findingMarks(query.data, frame.receivedAt, focused), [query.data, focused]);
  const findings = useMemo(() => findingsByNode(marks), [marks]);
  return (
    <>
      <Tree tree={tree} matchKeys={new Set()} findings={findings} />
      <AccessibilityPanel device={device} frame={frame} audit={query} />
    </>
  );
}

function show(transport: Transport): InspectorStore {
  const store = createInspectorStore();
  layOut({ '.tree': { width: 300, height: 4_000 } });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <ApiContext.Provider value={transport}>
      <QueryClientProvider client={client}>
        <InspectorScope.Provider value={store}>
          <Harness />
        </InspectorScope.Provider>
      </QueryClientProvider>
    </ApiContext.Provider>,
  );
  return store;
}

const rows = () => screen.getAllByTestId('a11y-finding');
const treeRow = (key: string) => screen.getAllByTestId('tree-node').find((r) => r.dataset['nodeKey'] === key)!;

beforeEach(() => useAccessibility.setState({ auditing: false, focused: null }));
afterEach(cleanup);

describe('R-A11Y-17 the live Accessibility panel', () => {
  it('R-A11Y-17 asks the host nothing until the audit is turned on, then lists every finding by severity, then kind', async () => {
    const host = fakeHost();
    show(host.transport);
    expect(host.calls).toEqual([]);
    fireEvent.click(screen.getByTestId('a11y-toggle'));
    await waitFor(() => expect(rows()).toHaveLength(audit.violations.length));
    // One audit; beside it only the list of devices the findings may be compared with (R-A11Y-21).
    expect(host.calls.map((c) => c.method).sort()).toEqual(['device.audit', 'devices.list']);
    expect(await screen.findByText('Connect another device to compare its findings with these.')).toBeTruthy();
    // The checkout screen: the aria-hidden chat launcher (elementDetection, error) and small targets (hitRegion).
    const groups = screen.getAllByTestId('a11y-group').map((g) => `${g.dataset['severity']} ${g.dataset['kind']}`);
    expect(groups.length).toBeGreaterThanOrEqual(2);
    const severities = groups.map((g) => g.split(' ')[0]);
    expect(severities).toEqual([...severities].sort((a, b) => ['error', 'warning', 'info'].indexOf(a!) - ['error', 'warning', 'info'].indexOf(b!)));
    const chat = rows().find((r) => r.dataset['rule'] === 'R-A11Y-01')!;
    expect(chat.closest('[data-testid="a11y-group"]')!.getAttribute('data-kind')).toBe('elementDetection');
    expect(within(chat).getByText(/Chat/)).toBeTruthy();
    expect(screen.getByTestId('a11y-counts').dataset['open']).toBe(String(audit.violations.length));
    // Contrast needs the screenshot: the panel says it was not evaluated rather than passing it.
    expect(screen.getAllByTestId('a11y-not-evaluated').map((n) => n.dataset['kind'])).toContain('contrast');
  });

  it('R-A11Y-17 picking a finding selects its element; its tree row carries the finding’s mark', async () => {
    const host = fakeHost();
    const store = show(host.transport);
    fireEvent.click(screen.getByTestId('a11y-toggle'));
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    const small = rows().find((r) => r.dataset['rule'] === 'R-A11Y-07')!;
    const key = small.dataset['nodeKey']!;
    expect(store.getState().selectedKey).toBeNull();
    fireEvent.click(within(small).getByTestId('a11y-finding-pick'));
    expect(store.getState().selectedKey).toBe(key);
    expect(treeRow(key).dataset['selected']).toBe('true');
    expect(within(treeRow(key)).getByTestId('tree-a11y').dataset['severity']).toBe(small.dataset['severity']);
    expect(small.dataset['selected']).toBe('true');
    expect(useAccessibility.getState().focused).toBe(small.dataset['fingerprint']);
  });

  it('R-A11Y-23 the picked finding explains itself beside its element: its rule in plain words, the fix, and Apple’s HIG, WCAG 2.2 and the XCTest audit type it stands on', async () => {
    const host = fakeHost();
    show(host.transport);
    fireEvent.click(screen.getByTestId('a11y-toggle'));
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    const chat = () => rows().find((r) => r.dataset['rule'] === 'R-A11Y-01')!;
    // Only the picked one: a list of findings, not a wall of text.
    expect(screen.queryAllByTestId('a11y-why')).toEqual([]);
    fireEvent.click(within(chat()).getByTestId('a11y-finding-pick'));
    expect(screen.getAllByTestId('a11y-why')).toHaveLength(1);
    expect(within(chat()).getByTestId('a11y-explanation').textContent).toMatch(/^Element XCTest cannot reach\. .*a VoiceOver user will not find it\.$/);
    expect(within(chat()).getByText(/^Fix: Make the view an accessibility element/)).toBeTruthy();
    expect(within(chat()).getByTestId('a11y-sources').textContent).toBe(
      'Sources: Apple HIG: Accessibility (VoiceOver); WCAG 2.2 SC 4.1.2 Name, Role, Value; XCUIAccessibilityAuditType.elementDetection',
    );
  });

  it('R-A11Y-17 a muted finding stays listed, marked and counted as muted, and the host keeps it for the device', async () => {
    const host = fakeHost();
    show(host.transport);
    fireEvent.click(screen.getByTestId('a11y-toggle'));
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    const total = rows().length;
    // A finding alone on its element (the tree's dot shows an element's open findings first).
    const keys = rows().map((r) => r.dataset['nodeKey']);
    const alone = rows().find((r) => keys.filter((k) => k === r.dataset['nodeKey']).length === 1)!.dataset['fingerprint'];
    const target = () => rows().find((r) => r.dataset['fingerprint'] === alone)!;
    const fingerprint = target().dataset['fingerprint']!;
    await act(async () => fireEvent.click(within(target()).getByTestId('a11y-mute')));
    await waitFor(() => expect(target().dataset['muted']).toBe('true'));
    expect(host.calls.at(-1)).toEqual({ method: 'device.muteFinding', input: { deviceId: 'device-1', fingerprint, muted: true } });
    expect(rows()).toHaveLength(total);
    expect(within(target()).getByText('muted')).toBeTruthy();
    expect(screen.getByTestId('a11y-counts').dataset['muted']).toBe('1');
    expect(screen.getByTestId('a11y-counts').dataset['open']).toBe(String(total - 1));
    expect(within(treeRow(target().dataset['nodeKey']!)).getByTestId('tree-a11y').dataset['muted']).toBe('true');
    // And back.
    await act(async () => fireEvent.click(within(target()).getByTestId('a11y-mute')));
    await waitFor(() => expect(target().dataset['muted']).toBe('false'));
    expect(host.muted).toEqual([]);
  });

  it('R-A11Y-17 a mute the host could not keep is said, and the finding is not shown as muted', async () => {
    const host = fakeHost({ refuseMutes: true });
    show(host.transport);
    fireEvent.click(screen.getByTestId('a11y-toggle'));
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    const first = rows()[0]!;
    await act(async () => fireEvent.click(within(first).getByTestId('a11y-mute')));
    await waitFor(() => expect(within(rows()[0]!).getByText(/Not saved: .*read-only/)).toBeTruthy());
    expect(rows()[0]!.dataset['muted']).toBe('false');
    expect(screen.getByTestId('a11y-counts').dataset['muted']).toBe('0');
  });
});

describe('R-A11Y-24 the panel while the host audits off its thread', () => {
  /** A host whose audits answer only when the test lets them, each with the frame it was asked for. */
  function gatedHost() {
    const gates: Array<() => void> = [];
    const transport = {
      kind: 'websocket',
      call: async (method: string) => {
        if (method === 'devices.list') return [device];
        if (method !== 'device.audit') throw new Error(`unexpected ${method}`);
        const receivedAt = RECEIVED_AT + gates.length;
        await new Promise<void>((open) => gates.push(open));
        return { receivedAt, audit, muted: [] };
      },
      on: () => () => {},
    } as unknown as Transport;
    return { transport, gates };
  }

  let setShown: (frame: Frame) => void = () => {};
  function Live() {
    const [shown, set] = useState(frame);
    setShown = set;
    const query = useDeviceAudit(device, shown);
    return <AccessibilityPanel device={device} frame={shown} audit={query} />;
  }

  it('R-A11Y-24: frames coming faster than the host answers: once any audit is answered, its findings are listed, said to be of an older frame', async () => {
    const host = gatedHost();
    useAccessibility.setState({ auditing: true });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <ApiContext.Provider value={host.transport}>
        <QueryClientProvider client={client}>
          <InspectorScope.Provider value={createInspectorStore()}>
            <Live />
          </InspectorScope.Provider>
        </QueryClientProvider>
      </ApiContext.Provider>,
    );
    await waitFor(() => expect(host.gates).toHaveLength(1));
    // The next frame comes before the first one's audit is answered.
    act(() => setShown({ ...frame, receivedAt: RECEIVED_AT + 1 }));
    await waitFor(() => expect(host.gates).toHaveLength(2));
    expect(screen.getByText('Auditing…')).toBeTruthy();
    await act(async () => host.gates[0]!());
    // And another before the second's: the first frame's findings are shown, not "Auditing…" for ever.
    act(() => setShown({ ...frame, receivedAt: RECEIVED_AT + 2 }));
    await waitFor(() => expect(rows()).toHaveLength(audit.violations.length));
    expect(screen.getByTestId('a11y-stale').textContent).toMatch(/Auditing the new frame/);
    await act(async () => host.gates.forEach((open) => open()));
  });
});

describe('R-A11Y-24 marks of an audit that answered after the next frame came', () => {
  const older = { receivedAt: RECEIVED_AT, audit, muted: [] };
  it('R-A11Y-24: the shown frame’s own audit is marked whole; an older frame’s only where each element is still where it was', () => {
    expect(findingMarks(older, RECEIVED_AT, null)).toHaveLength(audit.violations.length);
    // The next read of the same screen: every element where it was, every finding marked on it.
    expect(findingMarks(older, RECEIVED_AT + 1_000, null, indexTree(structuredClone(root)))).toHaveLength(audit.violations.length);
    // Without the shown tree nothing says the elements are the same: no mark.
    expect(findingMarks(older, RECEIVED_AT + 1_000, null)).toEqual([]);
    // One element moved: its findings are not marked where it no longer is; the others still are.
    const moved = structuredClone(root);
    const movedTree = indexTree(moved);
    const key = audit.violations[0]!.nodeKey;
    const node = movedTree.byKey.get(key)!.node;
    node.bounds = { left: 0, top: 0, right: 1, bottom: 1 };
    const marks = findingMarks(older, RECEIVED_AT + 1_000, null, movedTree);
    expect(marks.some((m) => m.nodeKey === key)).toBe(false);
    expect(marks).toHaveLength(audit.violations.filter((f) => f.nodeKey !== key).length);
    expect(marks.length).toBeGreaterThan(0);
  });
});
