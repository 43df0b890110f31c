/** Pure helpers the inspector UI uses over a runner hierarchy: keys, picking, search, attributes. */
export * from './tree';
export * from './pick';
export * from './search';
export * from './attributes';
