/**
 * The AppReveal wire schemas: session URLs, both element encodings, tool failures, and the projection
 * onto the runner's node shape.
 */
import { describe, expect, it } from 'vitest';
import {
  AppRevealElementsReplySchema,
  AppRevealScreenInfoSchema,
  AppRevealToolFailureSchema,
  AppRevealTxtSchema,
  AppRevealUrlError,
  AppRevealSessionUrlSchema,
  AppRevealWindowsReplySchema,
  DiscoveredDeviceSchema,
  WireElementSchema,
  appRevealSessionFromParts,
  endpointLabel,
  parseAppRevealSessionUrl,
  stripSessionToken,
  type AppRevealElement,
} from '@shared/protocol/appreveal';
import { appRevealElementsToUiNodes, appRevealViewHierarchy } from '@shared/observe/appreveal';
import { UiNodeSchema, ViewHierarchySchema } from '@shared/protocol/runner';
import { nodeFlag } from '@shared/model/node';

const TOKEN = '0123456789abcdef'.repeat(4);

describe('session URLs', () => {
  it('splits the printed session URL into base URL and token', () => {
    expect(parseAppRevealSessionUrl(`http://127.0.0.1:51234/?appreveal_session_token=${TOKEN}`)).toEqual({
      baseUrl: 'http://127.0.0.1:51234/',
      token: TOKEN,
    });
    expect(parseAppRevealSessionUrl(`  192.168.1.20:8080/?appreveal_session_token=${TOKEN}  `)).toEqual({
      baseUrl: 'http://192.168.1.20:8080/',
      token: TOKEN,
    });
    expect(parseAppRevealSessionUrl(`http://[::1]:9000/mcp?x=1&appreveal_session_token=${TOKEN}#frag`)).toEqual({
      baseUrl: 'http://[::1]:9000/mcp?x=1',
      token: TOKEN,
    });
    expect(parseAppRevealSessionUrl('http://localhost:9000')).toEqual({ baseUrl: 'http://localhost:9000/' });
  });

  it.each([
    ['', /paste an AppReveal session URL/],
    [`http://127.0.0.1/?appreveal_session_token=${TOKEN}`, /no port/],
    [`ws://127.0.0.1:81/?appreveal_session_token=${TOKEN}`, /starts with http/],
    [`http://user:pw@127.0.0.1:81/?appreveal_session_token=${TOKEN}`, /user name or password/],
    [`http://127.0.0.1:81/?appreveal_session_token=`, /is empty/],
    [`http://127.0.0.1:81/?appreveal_session_token=${TOKEN}&appreveal_session_token=${TOKEN.replace('0', '1')}`, /two different/],
    [`http://127.0.0.1:81/?appreveal_session_token=${TOKEN}%0D%0AX:1`, /cannot have/],
    [`http:// 127.0.0.1:80/?appreveal_session_token=${TOKEN}`, /whitespace/],
    ['http://[zz:80/', /not a valid URL/],
  ])('rejects %j with a clear error that never repeats the token', (input, message) => {
    let error: unknown;
    try {
      parseAppRevealSessionUrl(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppRevealUrlError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('builds a session from host, port and token', () => {
    expect(appRevealSessionFromParts('10.0.0.5', '7001', ` ${TOKEN} `)).toEqual({ baseUrl: 'http://10.0.0.5:7001/', token: TOKEN });
    expect(appRevealSessionFromParts('::1', 7001)).toEqual({ baseUrl: 'http://[::1]:7001/' });
    expect(() => appRevealSessionFromParts('host', 70000, TOKEN)).toThrow(/port/);
    expect(() => appRevealSessionFromParts('a/b', 1, TOKEN)).toThrow(/host/);
  });

  it('strips the token for display and storage', () => {
    expect(stripSessionToken(`http://me:pw@127.0.0.1:5/?a=1&appreveal_session_token=${TOKEN}#x`)).toBe('http://127.0.0.1:5/?a=1');
    expect(stripSessionToken('not a url at all %%%')).toBe('');
    expect(endpointLabel('http://[::1]:5/x?y')).toBe('[::1]:5');
  });

  it('decodes API input through a schema whose issue is the parse error', () => {
    const bad = AppRevealSessionUrlSchema.safeParse(`ftp://h:1/?appreveal_session_token=${TOKEN}`);
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).not.toContain(TOKEN);
    expect(AppRevealSessionUrlSchema.parse(`h:1/?appreveal_session_token=${TOKEN}`)).toEqual({ baseUrl: 'http://h:1/', token: TOKEN });
  });
});

describe('elements', () => {
  const normalized: AppRevealElement = {
    id: 'submit',
    type: 'button',
    label: 'Submit',
    enabled: true,
    visible: true,
    tappable: true,
    frame: { x: 16, y: 700, width: 358, height: 50 },
    actions: ['tap'],
    idSource: 'explicit',
    ocr: false,
  };

  it.each([
    [
      'iOS strings',
      {
        id: 'submit',
        type: 'button',
        label: 'Submit',
        value: '',
        enabled: 'true',
        visible: 'true',
        tappable: 'true',
        frame: '16,700,358,50',
        actions: 'tap',
        idSource: 'explicit',
      },
    ],
    [
      'Flutter booleans',
      {
        id: 'submit',
        type: 'button',
        label: 'Submit',
        value: null,
        enabled: true,
        visible: true,
        tappable: true,
        frame: { x: 16, y: 700, width: 358, height: 50 },
        actions: ['tap'],
        idSource: 'explicit',
      },
    ],
    [
      'w/h frame, upper-case booleans',
      {
        id: 'submit',
        type: 'button',
        label: 'Submit',
        enabled: 'TRUE',
        visible: 1,
        tappable: 'yes',
        frame: { x: '16', y: '700', w: 358, h: 50 },
        actions: ' tap ,',
        idSource: 'explicit',
      },
    ],
    [
      'array frame, CGRect text',
      {
        id: 'submit',
        type: 'button',
        label: 'Submit',
        enabled: true,
        visible: true,
        tappable: true,
        frame: [16, 700, 358, 50],
        actions: ['tap'],
        idSource: 'explicit',
      },
    ],
    [
      'CGRect string frame',
      {
        id: 'submit',
        type: 'button',
        label: 'Submit',
        enabled: true,
        visible: true,
        tappable: true,
        frame: '{{16, 700}, {358, 50}}',
        actions: ['tap'],
        idSource: 'explicit',
      },
    ],
  ])('%s normalize to one shape', (_name, wire) => {
    expect(WireElementSchema.parse(wire)).toEqual(normalized);
  });

  it('defaults what a port leaves out and marks OCR elements', () => {
    expect(WireElementSchema.parse({ id: 7, frame: '0,0,10,10', idSource: 'ocr' })).toEqual({
      id: '7',
      type: 'other',
      enabled: true,
      visible: true,
      tappable: false,
      frame: { x: 0, y: 0, width: 10, height: 10 },
      actions: [],
      idSource: 'ocr',
      ocr: true,
    });
  });

  it.each([
    [{ id: 'a', frame: '1,2,3' }, 'frame'],
    [{ id: 'a', frame: '1,2,3,4', enabled: 'maybe' }, 'enabled'],
    [{ frame: '1,2,3,4' }, 'id'],
    [{ id: 'a', frame: { x: 1, y: 2, width: 'wide', height: 4 } }, 'frame'],
  ])('rejects a malformed element naming the field (%j)', (wire, field) => {
    const result = WireElementSchema.safeParse(wire);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path[0]).toBe(field);
  });

  it('accepts {screenKey, elements} and a bare list', () => {
    const element = { id: 'a', frame: '0,0,1,1' };
    expect(AppRevealElementsReplySchema.parse({ screenKey: 'home', elements: [element] }).screenKey).toBe('home');
    expect(AppRevealElementsReplySchema.parse([element]).elements).toHaveLength(1);
  });
});

describe('screen, windows, failures, TXT', () => {
  it('decodes ScreenInfo leniently', () => {
    expect(
      AppRevealScreenInfoSchema.parse({
        screenKey: 'settings',
        screenTitle: 'Settings',
        frameworkType: 'swiftui',
        controllerChain: 'UINavigationController,SettingsHost',
        activeTab: 1,
        navigationDepth: '2',
        presentedModals: null,
        confidence: 0.75,
        source: 'derived',
        appBarTitle: null,
      }),
    ).toEqual({
      screenKey: 'settings',
      screenTitle: 'Settings',
      frameworkType: 'swiftui',
      controllerChain: ['UINavigationController', 'SettingsHost'],
      activeTab: '1',
      navigationDepth: 2,
      presentedModals: [],
      confidence: 0.75,
      source: 'derived',
      appBarTitle: undefined,
    });
  });

  it('decodes list_windows in both forms', () => {
    expect(AppRevealWindowsReplySchema.parse({ windows: [{ id: 'w0', title: 'Main', isKey: 'true', frame: '0,0,390,844' }], count: 1 })).toEqual([
      { id: 'w0', title: 'Main', isKey: true, frame: { x: 0, y: 0, width: 390, height: 844 } },
    ]);
    expect(AppRevealWindowsReplySchema.parse([{ id: 3, isKey: false }])).toEqual([{ id: '3', isKey: false }]);
  });

  it('decodes tool failures with string or object candidates', () => {
    expect(
      AppRevealToolFailureSchema.parse({ error: 'Multiple matches', candidates: ['OK', { label: 'OK', elementId: 'ok_2', frame: '1,2,3,4' }], hint: 'h' }),
    ).toEqual({
      error: 'Multiple matches',
      candidates: [{ text: 'OK' }, { text: 'OK', id: 'ok_2', frame: { x: 1, y: 2, width: 3, height: 4 } }],
      hint: 'h',
    });
    expect(AppRevealToolFailureSchema.parse({ error: { code: 3 } }).error).toBe('{"code":3}');
  });

  it('keeps unknown TXT keys and the known four', () => {
    expect(AppRevealTxtSchema.parse({ bundleId: 'a.b', version: '1', transport: 'streamable-http', auth: 'session-token', extra: 'x' })).toEqual({
      bundleId: 'a.b',
      version: '1',
      transport: 'streamable-http',
      auth: 'session-token',
      extra: 'x',
    });
  });

  it('describes a discovered device without a token', () => {
    expect(
      DiscoveredDeviceSchema.safeParse({
        id: 'appreveal:127.0.0.1:5',
        kind: 'appreveal',
        name: 'AppReveal-x',
        url: 'http://127.0.0.1:5/',
        state: 'available',
        sources: ['bonjour'],
      }).success,
    ).toBe(true);
  });
});

describe('projection onto runner nodes', () => {
  const elements = AppRevealElementsReplySchema.parse([
    {
      id: 'email',
      type: 'secureTextField',
      label: 'Password',
      value: 'x',
      enabled: 'true',
      visible: 'true',
      tappable: 'true',
      frame: '16.4,200.6,358,44',
      actions: 'tap,type,clear',
      idSource: 'explicit',
    },
    {
      id: 'promo',
      type: 'text',
      label: 'Spring sale',
      enabled: 'true',
      visible: 'false',
      tappable: 'false',
      frame: '40,420,120,22',
      actions: '',
      idSource: 'ocr',
    },
    { id: 'list', type: 'scrollView', enabled: 'false', visible: 'true', tappable: 'false', frame: '0,460,390,300', actions: 'scroll', idSource: 'derived' },
    {
      id: 'wifi',
      type: 'toggle',
      label: 'Wi-Fi',
      value: '1',
      enabled: 'true',
      visible: 'true',
      tappable: 'true',
      frame: '0,0,50,30',
      actions: 'tap',
      idSource: 'semantics',
    },
  ]).elements;
  const screen = AppRevealScreenInfoSchema.parse({ screenKey: 'login', screenTitle: 'Sign in', confidence: 0.9, source: 'explicit', frameworkType: 'uikit' });

  it('maps elements to kebab-case nodes with string booleans and integer bounds', () => {
    const root = appRevealElementsToUiNodes(elements, screen, { width: 390, height: 844 });
    expect(UiNodeSchema.safeParse(root).success).toBe(true);
    expect(root).toMatchObject({
      className: 'AppRevealScreen',
      text: 'Sign in',
      'resource-id': 'login',
      bounds: { left: 0, top: 0, right: 390, bottom: 844 },
      extras: { 'appreveal.screenKey': 'login', 'appreveal.screenSource': 'explicit', 'appreveal.confidence': '0.9', 'appreveal.frameworkType': 'uikit' },
    });
    const [email, promo, list, wifi] = root.node ?? [];
    expect(email).toEqual({
      'resource-id': 'email',
      'view-id': 'email',
      className: 'secureTextField',
      role: 'textfield',
      // A secure field's value is never carried (docs/rules.md#r-ar-10), whatever the app sent.
      text: 'Password',
      bounds: { left: 16, top: 201, right: 374, bottom: 245 },
      extras: { 'appreveal.type': 'secureTextField', 'appreveal.idSource': 'explicit' },
      actions: ['tap', 'type', 'clear'],
      enabled: 'true',
      clickable: 'true',
      focusable: 'true',
      password: 'true',
    });
    expect(promo?.extras).toEqual({ 'appreveal.type': 'text', 'appreveal.idSource': 'ocr', 'appreveal.ocr': 'true', 'appreveal.visible': 'false' });
    expect(promo?.role).toBe('text');
    expect(list && nodeFlag(list, 'enabled')).toBe(false);
    expect(list && nodeFlag(list, 'scrollable')).toBe(true);
    expect(wifi).toMatchObject({ role: 'switch', checkable: 'true', checked: 'true' });
  });

  it('builds a ViewHierarchy the runner schema accepts', () => {
    const hierarchy = appRevealViewHierarchy({ elements, screen, bundleId: 'dev.x', geometry: { width: 390, height: 844 }, updatedAt: 1 });
    expect(ViewHierarchySchema.safeParse(hierarchy).success).toBe(true);
    expect(hierarchy).toMatchObject({ packageName: 'dev.x', screenWidth: 390, screenHeight: 844, updatedAt: 1 });
    const withoutGeometry = appRevealElementsToUiNodes(elements);
    expect(withoutGeometry.bounds).toEqual({ left: 0, top: 0, right: 390, bottom: 760 });
  });
});
