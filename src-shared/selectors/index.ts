/** Selectors (docs/selectors.md): generated for a node, and read and evaluated in any syntax. */
export * from './errors';
export * from './element-type';
export * from './element';
export * from './screen';
export * from './maestro';
export * from './predicate';
export * from './xcuitest';
export * from './class-chain';
export * from './xpath';
export * from './query';
export * from './generate';
