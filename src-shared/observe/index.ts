/** The pure core of the observation pipeline (docs/architecture.md#a-pure-core). The main process calls assembleObservation. */
export * from './assemble';
export * from './backend';
export * from './backend-fields';
export * from './bridge-merge';
export * from './capability-cache';
export * from './discovery';
export * from './focus';
export * from './geometry';
export * from './layout';
export * from './nodes';
export * from './projection';
export * from './quality';
export * from './recorded';
export * from './web-mapping';
export * from './web-merge';
export * from './scope';
