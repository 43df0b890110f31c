/**
 * The page source WebDriverAgent builds for an XPath query and for Appium's `getPageSource`, from what
 * XCTest reports (docs/selectors.md#s-page-source, docs/rules.md#r-hand-08): one element per XCTest
 * element, named by its type, with the attributes WDA writes and the values WDA computes for them.
 *
 * Sources (appium/WebDriverAgent):
 * - `WebDriverAgentLib/Utilities/FBXPath.m`, `+[FBElementAttribute supportedAttributes]`: the attributes
 *   and their order (type, value, name, label, enabled, visible, accessible, x, y, width, height, index,
 *   hittable, placeholderValue); `recordWithWriter:forElement:` skips an attribute whose value is nil;
 *   `determineIncludedAttributesForQuery:` leaves `hittable` out of the page source (it is costly) and
 *   writes it only for a query that names it.
 * - `WebDriverAgentLib/Categories/XCUIElement+FBWebDriverAttributes.m`: `wdValue` (a static text's value
 *   falls back to its label, a button's to "1" when selected, a switch's is its boolValue as 0 or 1, a
 *   text input's falls back to its placeholder; empty is nil), `wdName` (the identifier, else the label),
 *   `wdLabel` (a text field's or secure text field's label is written even when empty),
 *   `wdPlaceholderValue` (likewise for text inputs), `wdFrame` (CGRectIntegral of the frame), `wdIndex`
 *   (the position among the parent's children).
 * - `WebDriverAgentLib/Utilities/FBElementHelpers.m` `FBDoesElementSupportsInnerText`: the text inputs are
 *   TextView, TextField, SearchField and SecureTextField.
 * - `WebDriverAgentLib/Utilities/NSString+FBXMLSafeString.m`: characters outside XML 1.0's Char
 *   production are removed (replacement "").
 *
 * What the observation does not hold is not invented: `accessible` (isAccessibilityElement up the
 * ancestors) and `hittable` (XCTest's hit point) are not written, and an XPath that names them is refused
 * (xpath.ts). `visible` is "true": the runner reports what is on screen.
 */
import { DOMImplementation, type Document, type Element } from '@xmldom/xmldom';
import type { ElementTypeName } from '@shared/model/element-type';
import { SelectorError } from './errors';
import type { ElementAttributes } from './element';
import type { ScreenView } from './screen';

/** WDA's page source attributes, in its order (FBXPath.m `supportedAttributes`). */
export const PAGE_SOURCE_ATTRIBUTES = [
  'type',
  'value',
  'name',
  'label',
  'enabled',
  'visible',
  'accessible',
  'x',
  'y',
  'width',
  'height',
  'index',
  'hittable',
  'placeholderValue',
] as const;
export type PageSourceAttribute = (typeof PAGE_SOURCE_ATTRIBUTES)[number];

/** The attributes WDA writes whose answer the observation does not hold. */
export const UNKNOWN_PAGE_SOURCE_ATTRIBUTES: readonly PageSourceAttribute[] = ['accessible', 'hittable'];

/**
 * The most elements a page source is built for. The XPath engine (the `xpath` package) spends about
 * 0.1 ms per element and predicate on this machine, so a bigger screen is refused before the document is
 * built rather than freezing the page (docs/rules.md#r-hand-08).
 */
export const MAX_PAGE_SOURCE_ELEMENTS = 5_000;

/** FBDoesElementSupportsInnerText (FBElementHelpers.m). */
const INNER_TEXT: ReadonlySet<ElementTypeName> = new Set(['TextView', 'TextField', 'SearchField', 'SecureTextField']);

// Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] (NSString+FBXMLSafeString.m).
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** A string as WDA writes it into the XML: without the characters XML 1.0 cannot hold. */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML_CHAR, '');
}

/** FBTransferEmptyStringToNil. */
function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}

/** -[NSString boolValue]: leading space, then an optional sign and zeros, then Y, y, T, t or 1–9. */
function boolValue(text: string): boolean {
  return /^\s*[+-]?0*[YyTt1-9]/.test(text);
}

/** `wdValue` (XCUIElement+FBWebDriverAttributes.m). */
function wdValue(e: ElementAttributes): string | undefined {
  if (e.type === 'StaticText') return nonEmpty(e.value) ?? nonEmpty(e.label);
  if (e.type === 'Button') return nonEmpty(e.value) ?? (e.selected ? '1' : undefined);
  // XCTest's value of a switch is "1" or "0"; the runner reports its state as `checked`.
  if (e.type === 'Switch') return (e.value !== undefined ? boolValue(e.value) : e.checked) ? '1' : '0';
  if (INNER_TEXT.has(e.type)) return nonEmpty(e.value) ?? nonEmpty(e.placeholderValue);
  return nonEmpty(e.value);
}

/** CGRectIntegral: the smallest integral rectangle that contains the frame. */
function integralFrame(f: NonNullable<ElementAttributes['frame']>): { x: number; y: number; width: number; height: number } {
  const x = Math.floor(f.x);
  const y = Math.floor(f.y);
  return { x, y, width: Math.ceil(f.x + f.width) - x, height: Math.ceil(f.y + f.height) - y };
}

/** The attributes WDA writes for one element, in its order, as [name, value]. */
export function pageSourceAttributes(e: ElementAttributes, index: number): [PageSourceAttribute, string][] {
  const textField = e.type === 'TextField' || e.type === 'SecureTextField';
  const frame = e.frame ? integralFrame(e.frame) : undefined;
  const values: Partial<Record<PageSourceAttribute, string | undefined>> = {
    type: e.xcuiType,
    value: wdValue(e),
    name: nonEmpty(e.identifier) ?? nonEmpty(e.label),
    label: textField ? (e.label ?? '') : nonEmpty(e.label),
    enabled: String(e.enabled),
    visible: 'true',
    x: frame && String(frame.x),
    y: frame && String(frame.y),
    width: frame && String(frame.width),
    height: frame && String(frame.height),
    index: String(index),
    placeholderValue: INNER_TEXT.has(e.type) ? (e.placeholderValue ?? '') : nonEmpty(e.placeholderValue),
  };
  const out: [PageSourceAttribute, string][] = [];
  for (const name of PAGE_SOURCE_ATTRIBUTES) {
    const value = values[name];
    if (value !== undefined) out.push([name, xmlSafe(value)]);
  }
  return out;
}

/** The page source of one view: the document, and for each of its elements the node it stands for. */
export interface PageSource {
  document: Document;
  /** The XCTest node (index in the view) of each element; the stand-in application above several tops has none. */
  nodeOf: Map<Element, number>;
  /** Elements in the document. */
  size: number;
}

const built = new WeakMap<ScreenView, PageSource>();

/** The view's members and how each element is written, in document order; refused over the size limit. */
function pageSourceElements(view: ScreenView): { tops: readonly number[]; count: number } {
  const count = view.members().length;
  if (count > MAX_PAGE_SOURCE_ELEMENTS)
    throw new SelectorError(
      'appium',
      `XPath: this screen has ${count.toLocaleString('en')} elements; WebDriverAgent's page source is built here for at most ${MAX_PAGE_SOURCE_ELEMENTS.toLocaleString('en')}`,
    );
  return { tops: view.children(-1), count };
}

/**
 * The page source of `view` (the XCTest view) as an XML document, built once per view. The document
 * element is the application, as WDA's snapshot of XCUIApplication is; a tree with several tops gets an
 * application element above them, with no attributes, that no query can select.
 */
export function pageSourceOf(view: ScreenView): PageSource {
  const cached = built.get(view);
  if (cached) return cached;
  const { tops, count } = pageSourceElements(view);
  const single = tops.length === 1;
  const rootName = single ? view.attrs[tops[0]!]!.xcuiType : 'XCUIElementTypeApplication';
  const document = new DOMImplementation().createDocument(null, rootName, null);
  const nodeOf = new Map<Element, number>();
  const orderOf = new Map<Element, number>();
  const endOf = new Map<Element, number>();
  const root = document.documentElement!;
  // xmldom's compareDocumentPosition walks every sibling on each call; the engine calls it for every
  // pair it orders, which made one query over 2,000 elements take seconds. The view knows each node's
  // pre-order index and subtree end, so elements answer from those instead.
  const compare = function (this: Element, other: unknown): number {
    const i = orderOf.get(this)!;
    const j = orderOf.get(other as Element);
    if (j === undefined) return (Object.getPrototypeOf(this) as Element).compareDocumentPosition.call(this, other as Element);
    if (i === j) return 0;
    // 2 preceding (+8 contains), 4 following (+16 contained by), as DOM's DocumentPosition.
    return j < i ? 2 | (i < endOf.get(other as Element)! ? 8 : 0) : 4 | (j < endOf.get(this)! ? 16 : 0);
  };
  const write = (element: Element, node: number, index: number) => {
    for (const [name, value] of pageSourceAttributes(view.attrs[node]!, index)) element.setAttribute(name, value);
    nodeOf.set(element, node);
    orderOf.set(element, node);
    endOf.set(element, view.subtreeEnd(node));
    Object.defineProperty(element, 'compareDocumentPosition', { value: compare });
    view.children(node).forEach((child, k) => {
      const childElement = document.createElement(view.attrs[child]!.xcuiType);
      element.appendChild(childElement);
      write(childElement, child, k);
    });
  };
  if (single) write(root, tops[0]!, 0);
  else {
    orderOf.set(root, -1);
    endOf.set(root, view.size);
    Object.defineProperty(root, 'compareDocumentPosition', { value: compare });
    tops.forEach((top, k) => {
      const element = document.createElement(view.attrs[top]!.xcuiType);
      root.appendChild(element);
      write(element, top, k);
    });
  }
  const source = { document, nodeOf, size: count };
  built.set(view, source);
  return source;
}

// libxml2's attribute escaping: markup characters as entities, white space other than a space as references.
const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"\t\n\r]/g, (c) => ESCAPES[c]!);
}

/**
 * The page source as text, as Appium's `getPageSource` returns it (FBXPath.m `xmlStringWithRootElement`:
 * libxml2's `xmlDocDumpFormatMemory`, an XML declaration and two spaces per level), for the user to
 * view, copy and save.
 */
export function pageSourceXml(view: ScreenView): string {
  const { document } = pageSourceOf(view);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const visit = (element: Element, depth: number) => {
    const attributes = Array.from({ length: element.attributes.length }, (_, k) => element.attributes.item(k)!)
      .map((a) => ` ${a.name}="${escapeAttribute(a.value)}"`)
      .join('');
    const children = Array.from({ length: element.childNodes.length }, (_, k) => element.childNodes.item(k)!).filter((n): n is Element => n.nodeType === 1);
    const pad = '  '.repeat(depth);
    if (children.length === 0) {
      lines.push(`${pad}<${element.tagName}${attributes}/>`);
      return;
    }
    lines.push(`${pad}<${element.tagName}${attributes}>`);
    for (const child of children) visit(child, depth + 1);
    lines.push(`${pad}</${element.tagName}>`);
  };
  visit(document.documentElement!, 0);
  return `${lines.join('\n')}\n`;
}
