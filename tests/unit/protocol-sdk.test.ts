import { describe, expect, it } from 'vitest';
import { decodeWith, type DecodeResult } from '@shared/protocol/errors';
import { decodeRunnerInbound, decodeRunnerRequest, encodeRunnerMessage, type RunnerInbound } from '@shared/protocol/runner';
import {
  BRIDGE_ACTION_KINDS,
  ACTION_REJECTION_REASONS,
  BridgeActionResultSchema,
  decodeAutoMobileAction,
  decodeWebControlAction,
  encodeAutoMobileAction,
  encodeWebControlAction,
  ObservationBridgeStateSchema,
  ObservationSnapshotSchema,
  SDK_RELAY_FAILURES,
  WebSnapshotSchema,
  type AutoMobileAction,
  type WebControlAction,
} from '@shared/protocol/sdk';

const BIG = '18446744073709551000'; // above 2^53: a JS number would round it

function ok<T>(result: DecodeResult<T>): T {
  if (!result.ok) throw new Error(`expected a decode, got ${result.error.message}`);
  return result.value;
}

function inbound(text: string): RunnerInbound {
  return ok(decodeRunnerInbound(text));
}

const rect = { left: 0, top: 0, right: 402, bottom: 874 };

describe('capture identities', () => {
  it('R-WIRE-10: a snapshot captureIdentity above 2^53 decodes digit for digit', () => {
    const text = `{"type":"sdk_observation_result","requestId":"o1","success":true,"available":true,"snapshot":{"captureIdentity":${BIG},"orientation":"portrait","coordinateSpace":"screen","bounds":{"left":0,"top":0,"right":402,"bottom":874},"capabilities":[]}}`;
    const reply = inbound(text) as { snapshot?: { captureIdentity: string } };
    expect(reply.snapshot?.captureIdentity).toBe(BIG);
    expect(
      ok(
        decodeWith(
          ObservationSnapshotSchema,
          `{"captureIdentity":${BIG},"orientation":"portrait","coordinateSpace":"screen","bounds":{"left":0,"top":0,"right":1,"bottom":1},"capabilities":[]}`,
        ),
      ).captureIdentity,
    ).toBe(BIG);
  });

  it('R-WIRE-10: an action encodes its observationIdentity back digit for digit', () => {
    const action: AutoMobileAction = { tap: { observationIdentity: BIG, elementId: 'submit' } };
    const text = encodeAutoMobileAction(action);
    expect(text).toBe(`{"tap":{"observationIdentity":${BIG},"elementId":"submit"}}`);
    expect(ok(decodeAutoMobileAction(text))).toEqual(action);
  });

  it('R-CMD-03: the actionJson string survives the runner request envelope unchanged', () => {
    const actionJson = encodeAutoMobileAction({ back: { observationIdentity: BIG } });
    const frame = encodeRunnerMessage({ type: 'request_sdk_action', requestId: 'sdkAction_1', actionJson });
    const request = ok(decodeRunnerRequest(frame));
    expect(request.type === 'request_sdk_action' && request.actionJson).toBe(actionJson);
    expect(ok(decodeAutoMobileAction(actionJson))).toEqual({ back: { observationIdentity: BIG } });
  });

  it('R-CMD-09: an accepted action carries nextObservationIdentity exactly', () => {
    const reply = inbound(
      `{"type":"sdk_action_result","requestId":"a","available":true,"result":{"success":true,"durationMs":12,"nextObservationIdentity":${BIG}}}`,
    );
    expect(reply).toMatchObject({ result: { success: true, nextObservationIdentity: BIG } });
  });

  it.each([
    ['negative', '-1'],
    ['above UInt64', '18446744073709551616'],
    ['fractional', '1.5'],
    ['a word', '"latest"'],
  ])('rejects an observationIdentity that is %s', (_name, value) => {
    const result = decodeAutoMobileAction(`{"tap":{"observationIdentity":${value},"elementId":"a"}}`);
    expect(result).toMatchObject({ ok: false, error: { kind: 'invalid_message', field: 'tap.observationIdentity' } });
  });
});

describe('AutoMobileAction: Swift enum shape, one key', () => {
  const point = { x: 10, y: 20 };
  const examples: Record<(typeof BRIDGE_ACTION_KINDS)[number], AutoMobileAction> = {
    tap: { tap: { observationIdentity: '41', elementId: 'submit' } },
    longPress: { longPress: { observationIdentity: '41', elementId: 'submit', durationMs: 600 } },
    swipe: { swipe: { observationIdentity: '41', start: point, end: { x: 10, y: 400 }, durationMs: 300 } },
    drag: { drag: { observationIdentity: '41', elementId: 'card', end: point, durationMs: 500 } },
    pinch: { pinch: { observationIdentity: '41', elementId: 'map', scale: 2, durationMs: 300 } },
    insertText: { insertText: { observationIdentity: '41', elementId: 'name', text: 'hi' } },
    clearText: { clearText: { observationIdentity: '41', elementId: 'name' } },
    back: { back: { observationIdentity: '41' } },
    scroll: { scroll: { observationIdentity: '41', delta: { x: 0, y: 120 } } },
  };

  it.each(BRIDGE_ACTION_KINDS)('%s round-trips', (kind) => {
    const text = encodeAutoMobileAction(examples[kind]);
    expect(text).toMatch(new RegExp(`^\\{"${kind}":\\{"observationIdentity":41[,}]`));
    expect(ok(decodeAutoMobileAction(text))).toEqual(examples[kind]);
  });

  it.each([
    ['two cases at once', '{"tap":{"observationIdentity":1,"elementId":"a"},"back":{"observationIdentity":1}}', ''],
    ['no case', '{}', ''],
    ['an unknown case', '{"doubleTap":{"observationIdentity":1,"elementId":"a"}}', 'doubleTap'],
    ['a missing elementId', '{"tap":{"observationIdentity":1}}', 'tap.elementId'],
    ['a swipe without end', '{"swipe":{"observationIdentity":1,"start":{"x":0,"y":0},"durationMs":1}}', 'swipe.end'],
    ['a list', '[{"tap":{}}]', ''],
  ])('rejects %s', (_name, text, field) => {
    expect(decodeAutoMobileAction(text)).toMatchObject({ ok: false, error: { kind: 'invalid_message', field } });
  });

  it('R-CMD-08: results carry the rejection reasons in check order', () => {
    expect(ACTION_REJECTION_REASONS).toEqual([
      'unsupported_action',
      'stale_observation',
      'unknown_element',
      'element_not_actionable',
      'action_in_flight',
      'action_queue_overloaded',
      'action_cancelled',
    ]);
    for (const reason of ACTION_REJECTION_REASONS) {
      const status = reason === 'action_cancelled' ? 'cancelled' : 'rejected';
      expect(BridgeActionResultSchema.parse({ success: false, reason })).toEqual({ success: false, status, reason, form: 'success' });
      expect(BridgeActionResultSchema.parse({ status, reason, durationMs: 0 })).toEqual({ success: false, status, reason, durationMs: 0, form: 'status' });
    }
  });
});

describe('observation bridge discovery', () => {
  it.each(['NOT_REGISTERED', 'SDK_TOO_OLD', 'SDK_UNAVAILABLE', 'MALFORMED_RESPONSE'])('reason %s reads as itself', (reason) => {
    expect(ObservationBridgeStateSchema.parse({ schemaVersion: 1, available: false, reason, supportedActions: [] }).reason).toBe(reason);
  });

  it('R-DISC-09: a reason written by a newer SDK reads as UNKNOWN', () => {
    expect(ObservationBridgeStateSchema.parse({ schemaVersion: 1, available: false, reason: 'BRIDGE_PAUSED', supportedActions: [] }).reason).toBe('UNKNOWN');
  });

  it('R-DISC-04: supportedActions are sorted kinds (a kind this client cannot send is dropped)', () => {
    const state = ObservationBridgeStateSchema.parse({ schemaVersion: 1, available: true, supportedActions: ['tap', 'scroll', 'insertText', 'rotate', 'tap'] });
    expect(state.supportedActions).toEqual(['insertText', 'scroll', 'tap']);
  });

  const capabilities = (bridge: string) =>
    `{"type":"sdk_capabilities_result","requestId":"sdkCapabilities_1","success":true,"available":true,"bundleId":"com.example","capabilities":["hierarchy"],"observationBridge":${bridge}}`;

  it('R-DISC-02: the registered bridge of the spec example decodes', () => {
    const reply = inbound(capabilities('{"schemaVersion":1,"available":true,"supportedActions":["tap","insertText","scroll"]}'));
    expect(reply).toMatchObject({ available: true, observationBridge: { available: true, supportedActions: ['insertText', 'scroll', 'tap'] } });
    const unregistered = inbound(capabilities('{"schemaVersion":1,"available":false,"reason":"NOT_REGISTERED","supportedActions":[]}'));
    expect(unregistered).toMatchObject({ observationBridge: { available: false, reason: 'NOT_REGISTERED' } });
  });

  it.each([
    ['a string', '"available"'],
    ['a wrong schemaVersion', '{"schemaVersion":2,"available":true,"supportedActions":[]}'],
    ['supportedActions as a string', '{"schemaVersion":1,"available":true,"supportedActions":"tap"}'],
    ['available missing', '{"schemaVersion":1,"supportedActions":[]}'],
    ['null', 'null'],
  ])('R-DISC-08: a malformed observationBridge (%s) reads as MALFORMED_RESPONSE and the reply still decodes', (_name, bridge) => {
    const reply = inbound(capabilities(bridge));
    expect(reply).toMatchObject({
      type: 'sdk_capabilities_result',
      requestId: 'sdkCapabilities_1',
      available: true,
      capabilities: ['hierarchy'],
      observationBridge: { available: false, reason: 'MALFORMED_RESPONSE', supportedActions: [] },
    });
  });

  it('R-DISC-06: a reply without bridge fields (an older runner) leaves them undefined', () => {
    const reply = inbound('{"type":"sdk_capabilities_result","requestId":"c","success":true,"available":false,"capabilities":[]}');
    expect(reply).not.toHaveProperty('observationBridge');
    expect((reply as { webViewBridge?: unknown }).webViewBridge).toBeUndefined();
  });

  it('R-WEB-02: webViewBridge keeps registration order and sorts allowedOrigins', () => {
    const reply = inbound(
      '{"type":"sdk_capabilities_result","requestId":"c","available":true,"webViewBridge":[' +
        '{"webViewId":"checkout","url":"https://b.example/pay","allowedOrigins":["https://b.example","https://a.example"],"contentProcessAvailable":true},' +
        '{"webViewId":"help","allowedOrigins":[],"contentProcessAvailable":false}]}',
    );
    expect(reply).toMatchObject({
      webViewBridge: [
        { webViewId: 'checkout', allowedOrigins: ['https://a.example', 'https://b.example'] },
        { webViewId: 'help', contentProcessAvailable: false },
      ],
    });
  });

  it('a malformed webViewBridge reads as not reported, and the reply still decodes', () => {
    const reply = inbound('{"type":"sdk_capabilities_result","requestId":"c","available":true,"webViewBridge":[{"webViewId":3}]}');
    expect(reply).toMatchObject({ type: 'sdk_capabilities_result', available: true });
    expect((reply as { webViewBridge?: unknown }).webViewBridge).toBeUndefined();
  });
});

describe('observation snapshot', () => {
  it('fills node defaults: enabled and visible true, focused false, no children', () => {
    const snapshot = ObservationSnapshotSchema.parse({
      captureIdentity: 41,
      orientation: 'portrait',
      coordinateSpace: 'screen',
      bounds: rect,
      focusedElementId: 'name',
      capabilities: ['tap'],
      root: {
        id: 'root',
        role: 'window',
        bounds: rect,
        children: [{ id: 'name', role: 'textfield', label: 'Name', bounds: { left: 16.5, top: 100, right: 386, bottom: 144 } }],
      },
    });
    expect(snapshot.captureIdentity).toBe('41');
    expect(snapshot.root?.children[0]).toEqual({
      id: 'name',
      role: 'textfield',
      label: 'Name',
      bounds: { left: 16.5, top: 100, right: 386, bottom: 144 },
      enabled: true,
      visible: true,
      focused: false,
      children: [],
    });
  });

  it('an orientation from a newer SDK reads as unknown; an unknown coordinateSpace is rejected', () => {
    const base = { captureIdentity: '1', bounds: rect, capabilities: [] };
    expect(ObservationSnapshotSchema.parse({ ...base, orientation: 'faceUp', coordinateSpace: 'screen' }).orientation).toBe('unknown');
    const result = decodeWith(ObservationSnapshotSchema, JSON.stringify({ ...base, orientation: 'portrait', coordinateSpace: 'layer' }));
    expect(result).toMatchObject({ ok: false, error: { field: 'coordinateSpace' } });
  });
});

describe('web views', () => {
  const target = { snapshotId: 's1', elementId: 'q' };
  const examples: WebControlAction[] = [
    { click: target },
    { focus: target },
    { clear: target },
    { scrollIntoView: target },
    { submit: target },
    { insertText: { ...target, text: 'hi' } },
    { setValue: { ...target, text: 'hi' } },
    { select: { ...target, value: 'blue' } },
    { scroll: { snapshotId: 's1', x: 0, y: 300 } },
  ];

  it.each(examples.map((action) => [Object.keys(action)[0], action] as const))('%s round-trips', (_kind, action) => {
    expect(ok(decodeWebControlAction(encodeWebControlAction(action)))).toEqual(action);
  });

  it('decodes the spec example', () => {
    expect(ok(decodeWebControlAction('{"setValue":{"snapshotId":"s1","elementId":"q","text":"hi"}}'))).toEqual({ setValue: { ...target, text: 'hi' } });
  });

  it.each([
    ['javascript', '{"javascript":{"source":"document.body.remove()"}}', 'javascript'],
    ['evaluate', '{"evaluate":{"snapshotId":"s1","script":"alert(1)"}}', 'evaluate'],
    ['a click with a script beside it', '{"click":{"snapshotId":"s1","elementId":"q"},"javascript":"alert(1)"}', ''],
    ['a click without elementId', '{"click":{"snapshotId":"s1"}}', 'click.elementId'],
  ])('R-WEB-12: there is no JavaScript case, so %s is rejected', (_name, text, field) => {
    expect(decodeWebControlAction(text)).toMatchObject({ ok: false, error: { kind: 'invalid_message', field } });
  });

  it('a web snapshot: CSS-pixel [x, y, w, h] bounds, redacted values, optional documentId', () => {
    const snapshot = WebSnapshotSchema.parse({
      snapshotId: 's1',
      url: 'https://a.example/form',
      viewport: { offsetLeft: 0, offsetTop: 40, width: 390, height: 700, scale: 1 },
      elements: [
        { id: '1', role: 'textbox', inputType: 'password', valueRedacted: true, bounds: [8, 60.5, 300, 32], enabled: true, visible: true, focused: false },
      ],
    });
    expect(snapshot.documentId).toBeUndefined();
    expect(snapshot.elements[0]?.bounds).toEqual([8, 60.5, 300, 32]);
    expect(snapshot.elements[0]).not.toHaveProperty('value');
    const bad = decodeWith(WebSnapshotSchema, '{"snapshotId":"s","elements":[{"id":"1","bounds":[1,2,3],"enabled":true,"visible":true,"focused":false}]}');
    expect(bad).toMatchObject({ ok: false, error: { field: 'elements.0.bounds' } });
  });

  it('the relay replies decode with their payloads', () => {
    const snap = inbound(
      '{"type":"sdk_web_snapshot_result","requestId":"w","success":true,"available":true,"webViews":[{"webViewId":"w1","allowedOrigins":[],"contentProcessAvailable":true}],"webViewId":"w1","snapshot":{"snapshotId":"s9","documentId":"d2","elements":[]}}',
    );
    expect(snap).toMatchObject({ webViewId: 'w1', snapshot: { snapshotId: 's9', documentId: 'd2' } });
    const action = inbound('{"type":"sdk_web_action_result","requestId":"a","available":true,"result":{"success":false,"reason":"javascript_error"}}');
    expect(action).toMatchObject({ result: { success: false, reason: 'javascript_error' } });
  });
});

describe('relay failures', () => {
  it('names every failure code of the observation and web commands', () => {
    expect(SDK_RELAY_FAILURES).toEqual([
      'bridge_unavailable',
      'app_not_active',
      'invalid_action',
      'bad_reply',
      'disallowed_origin',
      'web_process_unavailable',
      'message_too_large',
      'no_snapshot',
    ]);
  });

  it.each(SDK_RELAY_FAILURES)('R-CMD-06: failure %s decodes', (failure) => {
    const available = failure !== 'bridge_unavailable';
    const reply = inbound(JSON.stringify({ type: 'sdk_web_snapshot_result', requestId: 'w', success: false, available, failure }));
    expect(reply).toMatchObject({ available, failure, webViews: [] });
  });

  it('rejects a failure code it does not know, naming the field', () => {
    expect(decodeRunnerInbound('{"type":"sdk_action_result","requestId":"a","available":true,"failure":"gremlins"}')).toMatchObject({
      ok: false,
      error: { field: 'failure', requestId: 'a' },
    });
  });

  it('R-CMD-06: a request without actionJson still decodes, so a server can answer invalid_action', () => {
    expect(ok(decodeRunnerRequest('{"type":"request_sdk_web_action","requestId":"w"}'))).toEqual({ type: 'request_sdk_web_action', requestId: 'w' });
  });
});

describe("the SDK's real wire (its Swift types, docs/protocol.md#p-peers-differ)", () => {
  it.each([
    [
      'accepted',
      '{"status":"accepted","durationMs":12.5,"nextObservationIdentity":2}',
      { success: true, status: 'accepted', durationMs: 12.5, nextObservationIdentity: '2' },
    ],
    [
      'a bridge rejection',
      '{"status":"rejected","reason":"stale_observation","durationMs":0}',
      { success: false, status: 'rejected', reason: 'stale_observation' },
    ],
    ['a cancel', '{"status":"cancelled","reason":"action_cancelled","durationMs":0}', { success: false, status: 'cancelled', reason: 'action_cancelled' }],
    ['a host executor’s own reason', '{"status":"rejected","reason":"unsupported_gesture","durationMs":0}', { success: false, reason: 'unsupported_gesture' }],
    ['the success form', '{"success":true,"durationMs":3}', { success: true, status: 'accepted', form: 'success' }],
    ['the success form with a free-text reason', '{"success":false,"reason":"Host said: not now"}', { success: false, reason: 'Host said: not now' }],
  ])('R-CMD-13, R-CMD-14: an action result decodes: %s', (_name, text, expected) => {
    expect(ok(decodeWith(BridgeActionResultSchema, text))).toMatchObject(expected);
  });

  it('R-CMD-13: a Swift-form result keeps an identity above 2^53 digit for digit', () => {
    const reply = inbound(
      `{"type":"sdk_action_result","requestId":"a","available":true,"result":{"status":"accepted","durationMs":1,"nextObservationIdentity":${BIG}}}`,
    );
    expect(reply).toMatchObject({ result: { success: true, status: 'accepted', nextObservationIdentity: BIG } });
  });

  it.each([
    ['a status the SDK does not have', '{"status":"done","durationMs":0}', 'status'],
    ['the Swift form without durationMs', '{"status":"accepted"}', 'durationMs'],
    ['neither form', '{"ok":true}', 'success'],
    ['a reason too long to be one', `{"status":"rejected","reason":"${'x'.repeat(2_001)}","durationMs":0}`, 'reason'],
  ])('R-CMD-13: a result that is neither form is refused, naming the field: %s', (_name, text, field) => {
    expect(decodeWith(BridgeActionResultSchema, text)).toMatchObject({ ok: false, error: { kind: 'invalid_message', field } });
  });

  it('R-WEB-18: a web snapshot as the real SDK sends it: no viewport or documentId, "[REDACTED]" values, elements without bounds', () => {
    const snapshot = WebSnapshotSchema.parse({
      snapshotId: '1730000000000-0.42',
      url: 'https://a.example/form',
      elements: [
        { id: 'e0', role: 'input', label: 'Password', value: '[REDACTED]', bounds: [8, 60, 300, 32], enabled: true, visible: true, focused: false },
        { id: 'e1', role: 'button', label: 'Go', bounds: [], enabled: true, visible: true, focused: false },
        { id: 'e2', role: 'input', label: 'Name', value: 'Jane', bounds: [8, 100, 300, 32], enabled: true, visible: true, focused: true },
      ],
    });
    expect(snapshot.viewport).toBeUndefined();
    expect(snapshot.documentId).toBeUndefined();
    // "[REDACTED]" is a redaction, never the text; an element the script gave no bounds has no place.
    expect(snapshot.elements).toEqual([
      { id: 'e0', role: 'input', label: 'Password', valueRedacted: true, bounds: [8, 60, 300, 32], enabled: true, visible: true, focused: false },
      { id: 'e2', role: 'input', label: 'Name', value: 'Jane', bounds: [8, 100, 300, 32], enabled: true, visible: true, focused: true },
    ]);
  });
});
