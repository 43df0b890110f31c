/**
 * A small in-memory app behind the AppReveal server for the integration tests: two screens, a text
 * field, two buttons that share a label (for tap_text ambiguity), an OCR-derived element, and a real
 * PNG screenshot.
 */
import { PNG } from 'pngjs';
import {
  AppRevealToolError,
  type AppErrorEntry,
  type AppLogEntry,
  type AppNavigationStack,
  type AppNetworkCall,
  type AppRevealApp,
  type TapTextOptions,
} from '@demo/appreveal/server';
import type { AppRevealElement, AppRevealScreenInfo, AppRevealWindow } from '@shared/protocol/appreveal';
import type { ScrollDirection } from '@shared/protocol/appreveal-tools';

export const FAKE_BUNDLE_ID = 'dev.parallax.fake';
export const SCREEN_WIDTH = 390;
export const SCREEN_HEIGHT = 844;

function element(partial: Partial<AppRevealElement> & Pick<AppRevealElement, 'id' | 'type' | 'frame'>): AppRevealElement {
  return { enabled: true, visible: true, tappable: true, actions: ['tap'], ocr: partial.idSource === 'ocr', ...partial };
}

export class FakeApp implements AppRevealApp {
  readonly bundleId = FAKE_BUNDLE_ID;
  readonly version = '2.3.4';
  stack: string[] = ['login'];
  email = '';
  scrollOffset = 0;
  readonly log: string[] = [];
  /** Added to every get_screen, to make a call time out. */
  screenDelayMs = 0;

  listWindows(): AppRevealWindow[] {
    return [
      { id: 'w0', title: 'Main', isKey: true, frame: { x: 0, y: 0, width: SCREEN_WIDTH, height: SCREEN_HEIGHT } },
      { id: 'w1', title: 'Overlay', isKey: false, frame: { x: 0, y: 600, width: SCREEN_WIDTH, height: 244 } },
    ];
  }

  async getScreen(windowId?: string): Promise<AppRevealScreenInfo> {
    if (this.screenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.screenDelayMs));
    if (windowId === 'w1') return screen('overlay', 'Overlay', 0.5, 'derived');
    return this.current() === 'login' ? screen('login', 'Sign in', 1, 'explicit') : screen('profile', 'Profile', 0.8, 'derived');
  }

  getElements(windowId?: string): AppRevealElement[] {
    if (windowId === 'w1') {
      return [element({ id: 'dismiss', type: 'button', label: 'Dismiss', frame: { x: 20, y: 620, width: 100, height: 44 }, idSource: 'explicit' })];
    }
    if (this.current() === 'profile') {
      return [
        element({
          id: 'profile.name',
          type: 'label',
          label: 'Ada',
          tappable: false,
          actions: [],
          frame: { x: 16, y: 120, width: 200, height: 30 },
          idSource: 'text',
        }),
        element({ id: 'back', type: 'button', label: 'Back', frame: { x: 8, y: 50, width: 60, height: 44 }, idSource: 'explicit' }),
      ];
    }
    return [
      element({
        id: 'email',
        type: 'textField',
        label: 'Email',
        value: this.email || undefined,
        actions: ['tap', 'type', 'clear'],
        frame: { x: 16, y: 200, width: 358, height: 44 },
        idSource: 'explicit',
      }),
      element({ id: 'login', type: 'button', label: 'Sign in', frame: { x: 16, y: 260, width: 358, height: 50 }, idSource: 'explicit' }),
      element({ id: 'continue_1', type: 'button', label: 'Continue', frame: { x: 16, y: 330, width: 170, height: 44 }, idSource: 'text' }),
      element({ id: 'continue_2', type: 'button', label: 'Continue', frame: { x: 204, y: 330, width: 170, height: 44 }, idSource: 'text' }),
      element({ id: 'promo', type: 'text', label: 'Spring sale', tappable: true, frame: { x: 40, y: 420, width: 120, height: 22 }, idSource: 'ocr' }),
      element({ id: 'terms', type: 'button', label: 'Terms', enabled: false, frame: { x: 16, y: 780, width: 80, height: 30 }, idSource: 'semantics' }),
      element({ id: 'list', type: 'scrollView', tappable: false, actions: ['scroll'], frame: { x: 0, y: 460, width: 390, height: 300 }, idSource: 'derived' }),
      element({ id: 'hidden', type: 'button', label: 'Hidden', visible: false, frame: { x: 0, y: 900, width: 10, height: 10 }, idSource: 'appReveal' }),
    ];
  }

  async screenshot(): Promise<Buffer> {
    const png = new PNG({ width: 39, height: 84 });
    png.data.fill(this.current() === 'login' ? 200 : 90);
    return PNG.sync.write(png);
  }

  tapElement(id: string): Record<string, unknown> {
    this.log.push(`tap_element ${id}`);
    const target = this.getElements().find((e) => e.id === id);
    if (!target) throw new Error(`Element not found: ${id}`);
    if (!target.enabled) throw new Error(`Element is disabled: ${id}`);
    if (id === 'login') this.stack.push('profile');
    if (id === 'back') this.stack.pop();
    return {};
  }

  tapText(text: string, options: TapTextOptions): void {
    this.log.push(`tap_text ${text}`);
    const matches = this.getElements().filter((e) => (options.matchMode === 'contains' ? (e.label ?? '').includes(text) : e.label === text));
    if (matches.length === 0) throw new Error(`No element with text "${text}"`);
    if (matches.length > 1 && options.occurrence === undefined) {
      throw new AppRevealToolError(`Multiple elements match "${text}"`, {
        candidates: matches.map((m, index) => ({
          text: m.label,
          id: m.id,
          type: m.type,
          frame: `${m.frame.x},${m.frame.y},${m.frame.width},${m.frame.height}`,
          index,
        })),
        hint: 'Use occurrence parameter (0-based) to select a specific match',
      });
    }
    const chosen = matches[options.occurrence ?? 0];
    if (!chosen) throw new Error(`occurrence ${options.occurrence} out of range`);
    this.log.push(`tapped ${chosen.id}`);
  }

  tapPoint(x: number, y: number): void {
    this.log.push(`tap_point ${x},${y}`);
  }

  typeText(text: string, elementId?: string): void {
    if (elementId !== undefined && elementId !== 'email') throw new Error(`Not a text field: ${elementId}`);
    this.email += text;
  }

  clearText(elementId: string): void {
    if (elementId !== 'email') throw new Error(`Not a text field: ${elementId}`);
    this.email = '';
  }

  scroll(direction: ScrollDirection, containerId?: string): void {
    this.log.push(`scroll ${direction} ${containerId ?? '-'}`);
    this.scrollOffset += direction === 'down' ? 100 : -100;
  }

  scrollToElement(id: string): void {
    this.log.push(`scroll_to_element ${id}`);
  }

  navigateBack(): void {
    if (this.stack.length <= 1) throw new Error('Nothing to pop');
    this.stack.pop();
  }

  current(): string {
    return this.stack[this.stack.length - 1] ?? 'login';
  }
}

/** A FakeApp with web view tools too. */
export class FakeWebApp extends FakeApp {
  clicked: string[] = [];
  getWebViews(): unknown[] {
    return [{ id: 'wv0', url: 'https://example.test/form', title: 'Form' }];
  }
  getDomInteractive(): unknown {
    return [{ selector: '#q', tag: 'input' }];
  }
  webClick(selector: string): unknown {
    this.clicked.push(selector);
    return { clicked: selector };
  }
  webType(selector: string, text: string): unknown {
    return { selector, text };
  }
}

function screen(screenKey: string, screenTitle: string, confidence: number, source: string): AppRevealScreenInfo {
  return {
    screenKey,
    screenTitle,
    frameworkType: 'uikit',
    controllerChain: ['UINavigationController', `${screenTitle.replace(/\s/g, '')}ViewController`],
    presentedModals: [],
    navigationDepth: 1,
    confidence,
    source,
    appBarTitle: screenTitle,
    activeTab: undefined,
  };
}

/**
 * A FakeApp whose host set every provider Tauri's crate and iOS know (state, navigation, feature flags,
 * logs, network calls, recent errors), holding what the recorded builtins run registered
 * (tests/fixtures/appreveal-tauri/builtins).
 */
export class FakeProvidersApp extends FakeApp {
  readonly appName = 'Fake';
  getState(): Record<string, unknown> {
    return { screen: this.current(), email: this.email };
  }
  getNavigationStack(): AppNavigationStack {
    return { currentRoute: this.current(), navigationStack: ['home', ...this.stack], presentedModals: [] };
  }
  getFeatureFlags(): Record<string, unknown> {
    return { newCheckout: true };
  }
  getLogs(): AppLogEntry[] {
    return [
      { timestamp: '2026-12-01T10:00:00Z', level: 'info', message: 'hello', subsystem: FAKE_BUNDLE_ID, category: 'test' },
      ...this.log.map((message) => ({ timestamp: '2026-12-01T10:00:01Z', level: 'info', message })),
    ];
  }
  getNetworkCalls(): AppNetworkCall[] {
    return [{ id: '1', method: 'GET', url: 'https://example.test/api', statusCode: 200, durationMs: 12 }];
  }
  getRecentErrors(): AppErrorEntry[] {
    return [];
  }
}
