/** The action dispatcher's pure routing core: which backend, fallback or fail closed, and why. */
export * from './budget';
export * from './context';
export * from './display-fence';
export * from '@shared/model/identity'; // lives in the model (docs/architecture.md#floors)
export * from './look-for';
export * from './result';
export * from './secret';
export * from './send-keys';
export * from './swipe';
export { pointTargetRecord, routeTap, type TapGesture, type TapRoute, type TapTarget, type XctestTap } from './tap';
export * from './verdict';
export * from './scroll-loop';
