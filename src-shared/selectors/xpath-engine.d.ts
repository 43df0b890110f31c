/**
 * The types of the `xpath` package (goto100/xpath, XPath 1.0), as src-shared uses it. Its own
 * declarations reference the DOM library, which src-shared must not see (tsconfig.shared.json); this file
 * stands in for them (tsconfig.base.json `paths`), typed over @xmldom/xmldom's nodes, which it evaluates.
 */
import type { Node } from '@xmldom/xmldom';

/** An XPath value: a node set, a string, a number or a boolean. */
export interface XPathValue {
  nodeset(): { toArray(): Node[] };
  stringValue(): string;
  numberValue(): number;
  booleanValue(): boolean;
}

/** A function the expression may call: the evaluation context, then each argument's value. */
export type XPathFunction = (context: unknown, ...args: XPathValue[]) => string | number | boolean;

export interface XPathEvaluateOptions {
  node: Node;
  functions?: Readonly<Record<string, XPathFunction>>;
}

export interface XPathEvaluator {
  evaluate(options: XPathEvaluateOptions): XPathValue;
}

/** Reads an expression; throws an Error whose message says what is wrong. */
export function parse(expression: string): XPathEvaluator;

/** Whether an evaluated value is a node set (the result of a path or a union). */
export declare const XNodeSet: new () => object;
