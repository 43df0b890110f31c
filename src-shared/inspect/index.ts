/** Pure helpers the inspector UI uses over a runner hierarchy and its observation. */
export * from './pick';
export * from './search';
export * from './attributes';
export * from './source';
export * from './title';
export * from './observation';
export * from './actions';
export * from './live';
