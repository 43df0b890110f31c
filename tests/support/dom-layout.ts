/**
 * jsdom lays nothing out: every size is 0 and ResizeObserver does not exist. Component tests give the
 * elements the components measure the sizes a browser would (by CSS selector), and an element with an
 * inline pixel width and height (the Screen, the tree's rows) its own box at the top left of the page.
 * What the components compute from those sizes (scale, points, the rows in view) is what is tested.
 */
import { afterEach } from 'vitest';

export interface Box {
  width: number;
  height: number;
}

let boxes: [selector: string, box: Box][] = [];

function boxOf(element: Element): Box | undefined {
  return boxes.find(([selector]) => element.matches(selector))?.[1];
}

function styleBox(element: HTMLElement): Box {
  return { width: Number.parseFloat(element.style.width) || 0, height: Number.parseFloat(element.style.height) || 0 };
}

/** Gives the elements matching each selector a client size (the viewport, a scroll container). */
export function layOut(sizes: Record<string, Box>): void {
  boxes = Object.entries(sizes);
}

class NoResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}

globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;
Object.defineProperty(HTMLElement.prototype, 'clientWidth', {
  configurable: true,
  get: function (this: HTMLElement) {
    return boxOf(this)?.width ?? 0;
  },
});
Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
  configurable: true,
  get: function (this: HTMLElement) {
    return boxOf(this)?.height ?? 0;
  },
});
// A scroll container's content is as tall as its children's inline heights (the tree's rows box), and
// never shorter than the container: what the virtualizer clamps a scroll to.
Object.defineProperty(HTMLElement.prototype, 'scrollHeight', {
  configurable: true,
  get: function (this: HTMLElement) {
    let content = 0;
    for (const child of this.children) if (child instanceof HTMLElement) content += styleBox(child).height;
    return Math.max(boxOf(this)?.height ?? 0, content);
  },
});
HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
  const { width, height } = boxOf(this) ?? styleBox(this);
  return { x: 0, y: 0, left: 0, top: 0, width, height, right: width, bottom: height, toJSON: () => ({}) } as DOMRect;
};
// jsdom has no Element.scrollTo; a browser's instant scroll sets the offsets it is given.
Element.prototype.scrollTo ??= function (this: Element, options?: ScrollToOptions | number, y?: number) {
  if (typeof options === 'number') {
    this.scrollLeft = options;
    this.scrollTop = y ?? 0;
    return;
  }
  if (options?.left !== undefined) this.scrollLeft = options.left;
  if (options?.top !== undefined) this.scrollTop = options.top;
} as Element['scrollTo'];
Element.prototype.setPointerCapture ??= function () {};
Element.prototype.releasePointerCapture ??= function () {};
Element.prototype.hasPointerCapture ??= () => false;

afterEach(() => {
  boxes = [];
});
