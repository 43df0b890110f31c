/**
 * AutoMobileObservationBridge, as the demo app registers it: observations of the native views and
 * actions on them, with the checks docs/rules.md#r-cmd-08 lists, in its order:
 *   SDK: unsupported_action (against supportedActions)
 *   bridge: stale_observation, unknown_element, element_not_actionable, action_in_flight
 *   host executor: action_queue_overloaded, action_cancelled
 * Every capture moves the current observation identity (a UInt64, kept as a bigint and sent as digits);
 * an accepted action answers with the identity of the capture taken after it.
 *
 * Results go out in the SDK's Swift form, `{status, reason?, durationMs, nextObservationIdentity?}`
 * (docs/protocol.md#p-action-result), as a real app's bridge encodes them; the `bridge-success-form`
 * fault switches to the older `{success, reason?, …}` form the spec describes.
 */
import type { z } from 'zod';
import type {
  BridgeActionKind,
  ActionResultStatus,
  AutoMobileAction,
  ObservationNodeSchema,
  ObservationSnapshotSchema,
  SdkBoundsSchema,
  SuccessActionResultSchema,
  SwiftActionResultSchema,
} from '@shared/protocol/sdk';
import type { AppPage } from '@demo/phone/app-page';
import { walkNative, type NativeCapture, type NativeNode } from '@demo/phone/capture-model';
import type { Faults } from '@demo/phone/faults';
import { holdFor } from '@demo/base/fault-hold';

/** What the demo app registers: everything but drag and pinch, so those answer unsupported_action. */
export const SUPPORTED_ACTIONS: readonly BridgeActionKind[] = ['back', 'clearText', 'insertText', 'longPress', 'scroll', 'swipe', 'tap'];

const UINT64_MASK = (1n << 64n) - 1n;
const SNAPSHOT_CAPABILITIES = ['accessibilityIdentifiers', 'focus', 'values', 'visibility'];

// The wire forms are the shared schemas' inputs: what a real SDK encodes (docs/protocol.md#p-sdk-types).
export type WireBounds = z.input<typeof SdkBoundsSchema>;
export type WireObservationNode = z.input<typeof ObservationNodeSchema> & { children: WireObservationNode[] };
export type WireObservationSnapshot = z.input<typeof ObservationSnapshotSchema>;
export type WireActionResult = z.input<typeof SwiftActionResultSchema> | z.input<typeof SuccessActionResultSchema>;

/** What the bridge decided, before it is encoded in one of the two wire forms. */
interface Decided {
  status: ActionResultStatus;
  reason?: string;
  durationMs?: number;
  nextObservationIdentity?: string;
}

const rejected = (reason: string): Decided => ({ status: reason === 'action_cancelled' ? 'cancelled' : 'rejected', reason });

interface Indexed {
  node: WireObservationNode;
  source: NativeNode;
}

const ROLES: Record<string, string> = {
  XCUIApplication: 'application',
  UIButton: 'button',
  UILabel: 'staticText',
  UITextField: 'textField',
  UISecureTextField: 'secureTextField',
  UITextView: 'textView',
  UIImageView: 'image',
  UISwitch: 'switch',
  UICollectionView: 'collectionView',
  UICollectionViewCell: 'cell',
  UINavigationBar: 'navigationBar',
  UITabBar: 'tabBar',
  WKWebView: 'webView',
};

/**
 * The role the bridge reports. It reads the view in-process, so it knows more than its traits: a view with
 * a tap gesture recogniser is interactive (as AppReveal's `isInteractive` counts it: a UIControl, the
 * button trait, or a tap gesture), and a label set in a title text style reads as a header.
 */
function bridgeRole(source: NativeNode): string {
  if (source.role === 'heading') return 'header';
  if (source.tappable && !ROLES[source.cls]) return 'button';
  if (source.textStyle && /^(?:largeTitle|title\d?|headline)$/.test(source.textStyle)) return 'header';
  return ROLES[source.cls] ?? 'other';
}

/** The element id the bridge gives a view: its accessibilityIdentifier, else its place in the tree. */
export function elementIdOf(node: NativeNode, path: string): string {
  return node.id ?? `${node.cls}@${path}`;
}

/** Builds the bridge's node tree from a native capture. `dy` shifts into a non-screen space. */
export function buildObservation(native: NativeCapture, dy = 0): { root?: WireObservationNode; index: Map<string, Indexed>; focusedElementId?: string } {
  const index = new Map<string, Indexed>();
  let focusedElementId: string | undefined;
  const { width, height } = native.viewport;
  const convert = (source: NativeNode, path: string): WireObservationNode => {
    const [x, y, w, h] = source.rect;
    const onScreen = w > 0 && h > 0 && x < width && y < height && x + w > 0 && y + h > 0;
    const node: WireObservationNode = {
      id: elementIdOf(source, path),
      role: bridgeRole(source),
      bounds: { left: x, top: y - dy, right: x + w, bottom: y + h - dy },
      enabled: source.enabled,
      visible: onScreen,
      focused: source.focused,
      children: source.children.map((child, i) => convert(child, `${path}.${i}`)),
    };
    if (source.label) node.label = source.label;
    // A secure field's text never leaves the app.
    if (source.value !== undefined && source.value !== '' && !source.secure) node.value = source.value;
    if (source.focused) focusedElementId = node.id;
    index.set(node.id, { node, source });
    return node;
  };
  const root = native.root ? convert(native.root, '0') : undefined;
  return { root, index, focusedElementId };
}

export class ObservationBridge {
  private nextIdentity = 1n;
  private currentIdentity: bigint | undefined;
  private lastIndex = new Map<string, Indexed>();
  private lastSpaceOffset = 0;
  /** Whether an action runs now (admin stats' `busy`). */
  inFlight = false;
  /** The host executor's current action, settled or not: a reset waits for it (idle). */
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly app: AppPage,
    private readonly faults: Faults,
  ) {
    this.applyIdentityBase();
    faults.on('changed', (names) => {
      if (names.includes('capture-identity-base')) this.applyIdentityBase();
    });
  }

  private applyIdentityBase(): void {
    const base = this.faults.value('capture-identity-base');
    if (base !== undefined) this.nextIdentity = BigInt(base);
  }

  get current(): bigint | undefined {
    return this.currentIdentity;
  }

  /** How the registry describes itself in /health (R-DISC-02, R-DISC-04). */
  state(): unknown {
    if (this.faults.has('bridge-malformed')) {
      // Wrong types throughout: a client must drop this rather than trust any of it.
      return { schemaVersion: '1', available: 'yes', supportedActions: 'tap,scroll' };
    }
    if (this.faults.has('bridge-unregistered')) {
      return { schemaVersion: 1, available: false, reason: 'NOT_REGISTERED', supportedActions: [] };
    }
    return { schemaVersion: 1, available: true, supportedActions: [...SUPPORTED_ACTIONS] };
  }

  get registered(): boolean {
    return !this.faults.has('bridge-unregistered') && !this.faults.has('bridge-malformed');
  }

  private coordinateSpace(): 'screen' | 'window' | 'view' {
    const space = this.faults.value('bridge-coordinate-space');
    return space === 'window' || space === 'view' ? space : 'screen';
  }

  /** One capture: reads the screen and moves the current identity. */
  async snapshot(): Promise<WireObservationSnapshot> {
    const native = await this.app.captureNative();
    const space = this.coordinateSpace();
    // Window and view bounds are relative to the content below the status bar, so they are off by the
    // top safe area from screen points: exactly why a client must not merge them.
    const dy = space === 'screen' ? 0 : native.safeArea.top;
    const { root, index, focusedElementId } = buildObservation(native, dy);
    const identity = this.nextIdentity;
    this.nextIdentity = (identity + 1n) & UINT64_MASK;
    this.currentIdentity = identity;
    this.lastIndex = index;
    this.lastSpaceOffset = dy;
    const snapshot: WireObservationSnapshot = {
      captureIdentity: identity.toString(),
      orientation: 'portrait',
      coordinateSpace: space,
      bounds: { left: 0, top: 0, right: native.viewport.width, bottom: native.viewport.height - dy },
      capabilities: [...SNAPSHOT_CAPABILITIES],
    };
    if (root) snapshot.root = root;
    if (focusedElementId) snapshot.focusedElementId = focusedElementId;
    return snapshot;
  }

  async perform(action: AutoMobileAction): Promise<WireActionResult> {
    const decided = await this.decide(action);
    if (this.faults.has('bridge-success-form')) {
      const { status, ...rest } = decided;
      return { success: status === 'accepted', ...rest };
    }
    // Swift always encodes durationMs (0 on the bridge's own rejections); nil optionals are left out.
    return { ...decided, durationMs: decided.durationMs ?? 0 };
  }

  private async decide(action: AutoMobileAction): Promise<Decided> {
    const kind = Object.keys(action)[0] as BridgeActionKind;
    const payload = (action as Record<string, Record<string, unknown>>)[kind] ?? {};

    // SDK
    if (!SUPPORTED_ACTIONS.includes(kind)) return rejected('unsupported_action');

    // Bridge
    const named = String(payload.observationIdentity);
    if (this.currentIdentity === undefined || named !== this.currentIdentity.toString()) {
      return rejected('stale_observation');
    }
    const elementId = typeof payload.elementId === 'string' ? payload.elementId : undefined;
    let target: Indexed | undefined;
    if (elementId !== undefined) {
      target = this.lastIndex.get(elementId);
      if (!target) return rejected('unknown_element');
      if (!actionable(kind, target)) return rejected('element_not_actionable');
    } else if (kind === 'scroll') {
      target = [...this.lastIndex.values()].find((entry) => entry.source.scrollable && entry.node.visible);
      if (!target) return rejected('element_not_actionable');
    }
    if (this.inFlight) return rejected('action_in_flight');

    // Host executor
    this.inFlight = true;
    let done = () => {};
    this.running = new Promise<void>((resolve) => (done = resolve));
    const began = Date.now();
    try {
      // Held until the fault's time is up or it is cleared (a test's gate: action_in_flight for as long as it needs).
      await holdFor(this.faults, 'bridge-action-slow');
      if (this.faults.has('app-inactive')) return rejected('action_cancelled');
      const rejection = this.faults.value('bridge-reject');
      if (rejection) return rejected(rejection);

      const ran = await this.execute(kind, payload, target);
      if (ran === 'cancelled') return rejected('action_cancelled');
      if (!ran) return rejected('element_not_actionable');
      const next = await this.snapshot();
      return { status: 'accepted', durationMs: Date.now() - began, nextObservationIdentity: String(next.captureIdentity) };
    } finally {
      this.inFlight = false;
      done();
    }
  }

  /** Resolves once no action runs: one whose caller gave up (its budget ran out) may still be running. */
  idle(): Promise<void> {
    return this.running.then(() => undefined);
  }

  /** Where an element is now: the screen may have moved since the capture that named it. */
  private async liveCenter(target: Indexed): Promise<{ x: number; y: number } | undefined> {
    const native = await this.app.captureNative();
    let found: NativeNode | undefined;
    if (native.root) {
      walkNative(native.root, (node, path) => {
        if (!found && elementIdOf(node, path) === target.node.id) found = node;
        return !found;
      });
    }
    if (!found) return undefined;
    const [x, y, w, h] = found.rect;
    return { x: x + w / 2, y: y + h / 2 };
  }

  /** Whether the target field is the focused text field now (by its identifier when it has one). */
  private async holdsFocus(target: Indexed, tapped = false): Promise<boolean> {
    const focused = await this.app.focusedField();
    if (!focused || focused.kind !== 'native') return false;
    // A view without an identifier cannot be told apart: before the tap the capture says whether it was
    // the focused one, after it the tap on it is what focused a field.
    return target.source.id !== undefined ? focused.axId === target.source.id : !tapped ? target.source.focused : true;
  }

  private async execute(kind: BridgeActionKind, payload: Record<string, unknown>, target: Indexed | undefined): Promise<boolean | 'cancelled'> {
    const point = (value: unknown) => {
      const p = value as { x: number; y: number };
      return { x: p.x, y: p.y + this.lastSpaceOffset };
    };
    switch (kind) {
      case 'back':
        await this.app.back();
        return true;
      case 'swipe': {
        const start = point(payload.start);
        const end = point(payload.end);
        await this.app.swipe(start.x, start.y, end.x, end.y, Number(payload.durationMs) || 0);
        return true;
      }
      case 'scroll': {
        const delta = payload.delta as { x: number; y: number };
        if (!target) return false;
        // Content offset changes like UIScrollView.setContentOffset; positive y scrolls down.
        if (target.source.id && (await this.app.scrollViewBy(target.source.id, delta.x, delta.y))) return true;
        const center = await this.liveCenter(target);
        if (!center) return false;
        await this.app.swipe(center.x, center.y, center.x - delta.x, center.y - delta.y, 300);
        return true;
      }
      default: {
        if (!target) return false;
        const center = await this.liveCenter(target);
        if (!center) return false;
        if (kind === 'tap') await this.app.tap(center.x, center.y);
        else if (kind === 'longPress') await this.app.tap(center.x, center.y, Math.max(Number(payload.durationMs) || 0, 1));
        else if (kind === 'insertText' || kind === 'clearText') {
          if (!(await this.holdsFocus(target))) await this.app.tap(center.x, center.y);
          // The text goes to the first responder: when the tap did not make the field one, nothing would
          // take it. The tap ran, so this is the executor cancelling the action, never a success.
          if (!(await this.holdsFocus(target, true))) return 'cancelled';
          if (kind === 'insertText') await this.app.appendText(String(payload.text ?? ''), target.source.cls === 'UITextView');
          else await this.app.replaceText('');
        } else return false;
        return true;
      }
    }
  }
}

function actionable(kind: BridgeActionKind, target: Indexed): boolean {
  if (!target.node.enabled || !target.node.visible) return false;
  if (kind === 'insertText' || kind === 'clearText') return !!target.source.editable;
  if (kind === 'scroll') return !!target.source.scrollable;
  return true;
}
