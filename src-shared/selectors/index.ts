/** Selectors (docs/selectors.md): generated for a node, and read and evaluated in any syntax. */
export * from './errors';
export * from '@shared/model/element-type'; // lives in the model (docs/architecture.md#floors)
export * from './element';
export * from './screen';
export * from './maestro';
export * from './predicate';
export * from './xcuitest';
export * from './class-chain';
export * from './page-source';
export * from './xpath';
export * from './query';
export * from './generate';
