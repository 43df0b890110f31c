import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeWith, MAX_FRAME_BYTES, type DecodeResult } from '@shared/protocol/errors';
import {
  decodeRunnerInbound,
  decodeRunnerRequest,
  encodeRunnerMessage,
  isRunnerPush,
  RESULT_TYPES,
  RUNNER_COMMANDS,
  RUNNER_REPLY_TYPES,
  UiNodeSchema,
  ViewHierarchySchema,
  type ConnectedPush,
  type HierarchyUpdate,
  type HierarchyUpdateReply,
  type RunnerInbound,
  type UiNode,
} from '@shared/protocol/runner';
import { nodeFlag } from '@shared/model/node';
import { flattenTree } from '@shared/model/tree';
import { failed } from '../support/results';

// The recorded real-runner session (resources/recordings/settings-tap-general).
const GOLDEN = fileURLToPath(new URL('../../resources/recordings/settings-tap-general/', import.meta.url));
const goldenFiles = readdirSync(GOLDEN)
  .filter((name) => name.endsWith('.json'))
  .sort();

interface GoldenFile {
  request?: unknown;
  response?: unknown;
  push?: unknown;
}
function golden(name: string): GoldenFile {
  const file = goldenFiles.find((f) => f.startsWith(name));
  if (!file) throw new Error(`no golden file ${name}`);
  return JSON.parse(readFileSync(GOLDEN + file, 'utf8')) as GoldenFile;
}

function ok<T>(result: DecodeResult<T>): T {
  if (!result.ok) throw new Error(`expected a decode, got ${result.error.message}`);
  return result.value;
}

function inbound(value: unknown): RunnerInbound {
  return ok(decodeRunnerInbound(JSON.stringify(value)));
}

const findNode = (root: UiNode | undefined, predicate: (node: UiNode) => boolean): UiNode | undefined =>
  root ? flattenTree(root).find((f) => predicate(f.node))?.node : undefined;

/** A tiny deterministic PRNG, so the garbage frame is the same on every run. */
function garbage(bytes: number): string {
  const out = Buffer.alloc(bytes);
  let state = 0x9e3779b9;
  for (let i = 0; i < bytes; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  out[0] = 0x07; // never a JSON value's first character
  return out.toString('latin1');
}

describe('golden runner traffic (settings-tap-general)', () => {
  it('holds the 14 recorded files', () => {
    expect(goldenFiles).toHaveLength(14);
  });

  it.each(goldenFiles)('%s decodes', (file) => {
    const recorded = JSON.parse(readFileSync(GOLDEN + file, 'utf8')) as GoldenFile;
    if (file.includes('-push-')) {
      const push = inbound(recorded.push);
      expect(isRunnerPush(push)).toBe(true);
      expect(file).toContain(push.type);
      return;
    }
    const request = ok(decodeRunnerRequest(JSON.stringify(recorded.request)));
    const reply = inbound(recorded.response);
    expect(isRunnerPush(reply)).toBe(false);
    expect('requestId' in reply && reply.requestId).toBe(request.requestId);
    // The reply type is one that answers the command.
    expect(RESULT_TYPES[request.type]).toContain(reply.type);
  });

  it('0008: the General row has bounds 16,380,386,432 on a 402x874 screen', () => {
    const reply = inbound(golden('0008').response) as HierarchyUpdateReply;
    expect(reply.type).toBe('hierarchy_update');
    expect(reply.servedFromCache).toBe(false);
    expect(reply.frameContext).toBe('946BF959-8722-4080-BE15-4E9A2148C58C:75:b3ace3af9b894ed3');
    expect(reply.data?.screenWidth).toBe(402);
    expect(reply.data?.screenHeight).toBe(874);
    expect(reply.data?.packageName).toBe('com.apple.Preferences');
    expect(reply.data?.insets).toEqual({
      available: false,
      source: 'unavailable',
      units: 'unknown',
      displayCutoutInfo: { classification: 'unknown' },
    });
    const root = reply.data?.hierarchy;
    expect(root?.className).toBe('XCUIApplication');
    const general = findNode(root, (n) => n['resource-id'] === 'com.apple.settings.general');
    expect(general?.bounds).toEqual({ left: 16, top: 380, right: 386, bottom: 432 });
    expect(general && nodeFlag(general, 'clickable')).toBe(true);
    expect(general && nodeFlag(general, 'enabled')).toBe(true); // absent: enabled
    expect(general && nodeFlag(general, 'focused')).toBe(false); // absent: not focused
  });

  it('keeps nodes that extend off screen (negative bounds)', () => {
    const push = inbound(golden('0002').push) as HierarchyUpdate;
    const overlay = findNode(push.data?.hierarchy, (n) => n['resource-id'] === 'AdditionalDimmingOverlay');
    expect(overlay?.bounds).toEqual({ left: -120, top: 738, right: 522, bottom: 1010 });
  });

  it('keeps actions and hint-text of a search field', () => {
    const push = inbound(golden('0002').push) as HierarchyUpdate;
    const field = findNode(push.data?.hierarchy, (n) => n.actions !== undefined);
    expect(field?.actions).toEqual(['set_text', 'clear_text']);
    expect(field?.['hint-text']).toBe('Search');
  });

  it('0001: the connected push lists get_sdk_capabilities and display_cutout_info', () => {
    const push = inbound(golden('0001').push) as ConnectedPush;
    expect(push.type).toBe('connected');
    expect(push.id).toBe(99);
    expect(push.supportedCommands).toContain('get_sdk_capabilities');
    expect(push.supportedCommands).toContain('request_hierarchy_if_stale');
    expect(push.supportedCommands).not.toContain('request_sdk_observation'); // this runner has no relay commands (docs/protocol.md#p-peers-differ)
    expect(push.supportedFeatures).toEqual(['display_cutout_info']);
  });

  it('0003/0012: requests and their timed replies', () => {
    const launch = ok(decodeRunnerRequest(JSON.stringify(golden('0003').request)));
    expect(launch).toMatchObject({ type: 'request_launch_app', bundleId: 'com.apple.Preferences', coldBoot: false, timeoutMs: 10000 });
    const tap = ok(decodeRunnerRequest(JSON.stringify(golden('0012').request)));
    expect(tap).toMatchObject({ type: 'request_tap_coordinates', x: 201, y: 406, duration: 0 });
    const reply = inbound(golden('0012').response);
    expect(reply).toMatchObject({ type: 'tap_coordinates_result', success: true, totalTimeMs: 1579 });
    const perf = (reply as { perfTiming?: { name: string; children?: { name: string }[] } }).perfTiming;
    expect(perf?.name).toBe('total');
    expect(perf?.children?.map((c) => c.name)).toEqual(['getViewHierarchy', 'handleRequest:request_tap_coordinates', 'gesturePhases']);
  });

  it('0004: an app without the SDK answers available: false', () => {
    expect(inbound(golden('0004').response)).toMatchObject({ type: 'sdk_capabilities_result', available: false, capabilities: [] });
  });

  it('0006: a performance push', () => {
    expect(inbound(golden('0006').push)).toMatchObject({ type: 'performance_update', performanceData: { fps: 60, jankFrames: 0 } });
  });

  it('a decoded frame encodes to a frame that decodes to the same value', () => {
    for (const name of ['0002', '0008']) {
      const recorded = golden(name);
      const first = inbound(recorded.push ?? recorded.response);
      expect(ok(decodeRunnerInbound(encodeRunnerMessage(first)))).toEqual(first);
    }
  });
});

describe('runner message shapes', () => {
  it('RESULT_TYPES answers every command with known reply types', () => {
    expect(Object.keys(RESULT_TYPES).sort()).toEqual([...RUNNER_COMMANDS].sort());
    for (const types of Object.values(RESULT_TYPES)) {
      for (const type of types) expect(RUNNER_REPLY_TYPES).toContain(type);
    }
    expect(RESULT_TYPES.request_screenshot).toEqual(['screenshot', 'screenshot_error']);
  });

  it('a hierarchy_update that carries only an error decodes (push and reply)', () => {
    expect(inbound({ type: 'hierarchy_update', data: { error: 'app not running' } })).toMatchObject({
      data: { error: 'app not running' },
    });
    const reply = inbound({ type: 'hierarchy_update', requestId: 'h1', success: false, error: 'no app' });
    expect(reply).toMatchObject({ requestId: 'h1', success: false, error: 'no app' });
    expect(isRunnerPush(reply)).toBe(false);
  });

  it('a failed screenshot may come as screenshot with success: false', () => {
    expect(inbound({ type: 'screenshot', requestId: 's', success: false, error: 'capture failed' })).toMatchObject({ success: false });
    expect(inbound({ type: 'screenshot_error', requestId: 's', error: 'capture failed' })).toMatchObject({ error: 'capture failed' });
  });

  it('an unknown reply type with a requestId decodes as a generic reply', () => {
    const reply = inbound({ type: 'error', requestId: 'r1', success: false, error: 'Unknown command type: request_x', extra: 1 });
    expect(reply).toEqual({ type: 'error', requestId: 'r1', success: false, error: 'Unknown command type: request_x' });
    // Lenient: a malformed field must not stop the waiting request from failing cleanly.
    expect(inbound({ type: 'error', requestId: 'r2', success: 'no' })).toEqual({ type: 'error', requestId: 'r2' });
  });

  it('unknown fields are ignored', () => {
    const push = inbound({
      type: 'performance_update',
      novel: true,
      performanceData: { fps: 1, frameTimeMs: 1, jankFrames: 0, cpuUsagePercent: 1, memoryUsageMb: 1, timestamp: 1, gpu: 3 },
    });
    expect(push).not.toHaveProperty('novel');
  });

  it('R-OBS-04, R-OWV-10: a merged tree keeps the attributes the merge adds', () => {
    const merged = {
      className: 'UIButton',
      'sdk-element-id': 'submit',
      'sdk-capture-identity': '18446744073709551000',
      'web-view-id': 'w1',
      'web-snapshot-id': 's1',
      'web-element-id': '7',
      'web-document-id': 'd1',
      'web-origin': 'https://example.com',
      'web-role': 'textbox',
      'value-redacted': 'true',
      extras: { 'sdk.source': 'sdkWebBridge' },
    };
    expect(UiNodeSchema.parse(merged)).toEqual(merged);
    expect(ViewHierarchySchema.parse({ hierarchy: { node: [merged] } }).hierarchy?.node?.[0]).toEqual(merged);
  });

  it('nodeFlag: absent means false, except enabled', () => {
    expect(nodeFlag({}, 'enabled')).toBe(true);
    expect(nodeFlag({}, 'clickable')).toBe(false);
    expect(nodeFlag({ enabled: 'false' }, 'enabled')).toBe(false);
    expect(nodeFlag({ 'long-clickable': 'true' }, 'long-clickable')).toBe(true);
    expect(nodeFlag({ checked: 'false' }, 'checked')).toBe(false);
  });

  it('a request round-trips through encodeRunnerMessage', () => {
    const request = { type: 'request_swipe', requestId: 'swipe_1', x1: 1, y1: 2, x2: 3, y2: 4, duration: 300, frameContext: 'a:1:b' } as const;
    expect(ok(decodeRunnerRequest(encodeRunnerMessage(request)))).toEqual(request);
  });
});

describe('malformed frames are rejected with a typed error, never a throw', () => {
  const generalBoundsAsString = (() => {
    const recorded = structuredClone(golden('0008').response) as { data: { hierarchy: { node: { node: { node: { bounds: { left: unknown } }[] }[] }[] } } };
    const general = recorded.data.hierarchy.node[1]!.node[3]!.node[0]!;
    general.bounds.left = '16';
    return JSON.stringify(recorded);
  })();
  const hierarchyPush = (hierarchy: unknown) => JSON.stringify({ type: 'hierarchy_update', data: { hierarchy } });

  const inboundCases: [string, string, 'invalid_json' | 'truncated' | 'too_large' | 'invalid_message', string][] = [
    ['bounds.left as a string', generalBoundsAsString, 'invalid_message', 'data.hierarchy.node.1.node.3.node.0.bounds.left'],
    ['bounds.right fractional', hierarchyPush({ bounds: { left: 0, top: 0, right: 1.5, bottom: 0 } }), 'invalid_message', 'data.hierarchy.bounds.right'],
    ['success as "yes"', '{"type":"tap_coordinates_result","requestId":"tap_1","success":"yes"}', 'invalid_message', 'success'],
    ['a known reply without requestId', '{"type":"tap_coordinates_result","success":true}', 'invalid_message', 'requestId'],
    ['a screenshot_error without requestId', '{"type":"screenshot_error","error":"x"}', 'invalid_message', 'requestId'],
    ['a numeric requestId', '{"type":"hierarchy_update","requestId":7,"error":"x"}', 'invalid_message', 'requestId'],
    ['a string where the node list belongs', hierarchyPush({ node: 'x' }), 'invalid_message', 'data.hierarchy.node'],
    ['a node flag that is not "true"/"false"', hierarchyPush({ clickable: 'yes' }), 'invalid_message', 'data.hierarchy.clickable'],
    ['a node flag as a JSON boolean', hierarchyPush({ enabled: true }), 'invalid_message', 'data.hierarchy.enabled'],
    ['extras with a non-string value', hierarchyPush({ extras: { a: 1 } }), 'invalid_message', 'data.hierarchy.extras.a'],
    ['a hierarchy_update with neither data nor error', '{"type":"hierarchy_update"}', 'invalid_message', 'data'],
    ['data with neither hierarchy nor error', '{"type":"hierarchy_update","data":{"updatedAt":1}}', 'invalid_message', 'data.hierarchy'],
    [
      'a malformed perfTiming child',
      '{"type":"swipe_result","requestId":"s","perfTiming":{"name":"t","durationMs":1,"children":[{"name":"x"}]}}',
      'invalid_message',
      'perfTiming.children.0.durationMs',
    ],
    ['truncated JSON', JSON.stringify(golden('0008').response).slice(0, 5000), 'truncated', ''],
    ['10 MB of garbage bytes', garbage(10 * 1024 * 1024), 'invalid_json', ''],
    ['a frame over MAX_FRAME_BYTES', 'a'.repeat(MAX_FRAME_BYTES + 1), 'too_large', ''],
    ['an empty frame', '', 'invalid_json', ''],
    ['42', '42', 'invalid_message', ''],
    ['null', 'null', 'invalid_message', ''],
    ['[]', '[]', 'invalid_message', ''],
    ['a bare string', '"hierarchy_update"', 'invalid_message', ''],
    ['no type', '{"requestId":"r"}', 'invalid_message', 'type'],
    ['a numeric type', '{"type":3,"requestId":"r"}', 'invalid_message', 'type'],
    ['an unknown type without requestId', '{"type":"keyboard_update"}', 'invalid_message', 'type'],
  ];

  it.each(inboundCases)('decodeRunnerInbound: %s', (_name, text, kind, field) => {
    let result: ReturnType<typeof decodeRunnerInbound> | undefined;
    expect(() => {
      result = decodeRunnerInbound(text);
    }).not.toThrow();
    expect(result?.ok).toBe(false);
    if (result?.ok !== false) return;
    expect(result.error.kind).toBe(kind);
    expect(result.error.field).toBe(field);
    expect(result.error.name).toBe('ProtocolDecodeError');
    expect(result.error.message).not.toMatch(/[\n\r]/);
    expect(result.error.message).toContain(field === '' ? '(frame)' : field);
  });

  const requestCases: [string, string, string][] = [
    ['a request without requestId', '{"type":"request_screenshot"}', 'requestId'],
    ['an unknown command', '{"type":"request_teleport","requestId":"r"}', 'type'],
    ['a tap without y', '{"type":"request_tap_coordinates","requestId":"t","x":1,"duration":0}', 'y'],
    ['an IME action that does not exist', '{"type":"request_ime_action","requestId":"i","action":"jump"}', 'action'],
    ['a launch without bundleId', '{"type":"request_launch_app","requestId":"l"}', 'bundleId'],
    ['a non-object', '42', ''],
  ];

  it.each(requestCases)('decodeRunnerRequest: %s', (_name, text, field) => {
    const result = decodeRunnerRequest(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('invalid_message');
    expect(result.error.field).toBe(field);
  });

  it('a bad reply still names its requestId, so the waiting request can fail now', () => {
    const result = decodeRunnerInbound('{"type":"tap_coordinates_result","requestId":"tap_1","success":"yes"}');
    expect(result.ok).toBe(false);
    expect(failed(result).requestId).toBe('tap_1');
  });

  it('the size limit counts UTF-8 bytes, not characters', () => {
    const text = JSON.stringify({ s: 'é'.repeat(60) }); // 68 characters, 128 bytes
    expect(decodeWith(ViewHierarchySchema, text, 100)).toMatchObject({ ok: false, error: { kind: 'too_large' } });
    expect(decodeWith(UiNodeSchema, text, 128)).toMatchObject({ ok: true });
  });
});
