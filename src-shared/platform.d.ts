/**
 * The few globals src-shared may use: the WHATWG URL API and structuredClone, which Node, every browser and Electron provide
 * alike. Everything else a runtime offers (Node's modules and `process`, the DOM) stays out of reach, so
 * using it here is a type error (tsconfig.shared.json compiles this folder with no ambient types).
 */
interface URLSearchParams {
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  delete(name: string): void;
  toString(): string;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

interface URL {
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
}

// eslint-disable-next-line no-var -- a global declared the way lib.dom.d.ts declares it, so the two merge
declare var URL: {
  prototype: URL;
  new (url: string | URL, base?: string | URL): URL;
};

/** The structured clone every runtime of ours provides (Node 17+, browsers, Electron): a deep copy of plain data. */
declare function structuredClone<T>(value: T): T;
