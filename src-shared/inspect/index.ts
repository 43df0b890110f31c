/** Pure helpers the inspector UI uses over a runner hierarchy and its observation. */
export * from '@shared/model/pick'; // lives in the model (docs/architecture.md#floors)
export * from './search';
export * from './attributes';
export * from './source';
export * from '@shared/model/title'; // lives in the model, where action records name their targets (docs/architecture.md#floors)
export * from './observation';
export * from './actions';
export * from './live';
export * from '@shared/model/target'; // lives in the model (docs/architecture.md#floors)
export * from '@shared/act/describe'; // lives with the actions (docs/architecture.md#floors)
export * from './perf';
export * from './follow';
