/**
 * The observation's `systemInsets` alias (docs/rules.md#r-obj-03, seed 002): the runner's own edges, else
 * the available typed safe area, else none.
 */
import { describe, expect, it } from 'vitest';
import { assembleObservation } from '@shared/observe/assemble';
import { systemInsetsOf } from '@shared/observe/system-insets';
import { ObservationSchema } from '@shared/protocol/observation';
import type { ViewHierarchy } from '@shared/protocol/runner';

const SAFE = { top: 62, left: 0, bottom: 34, right: 0 };
// The metadata of the real runner's Settings read (ctrlproxy-golden settings-tap-general, 0008): typed
// insets that say they are unavailable, and no systemInsets.
const RECORDED_SETTINGS: ViewHierarchy = {
  packageName: 'com.apple.Preferences',
  screenWidth: 402,
  screenHeight: 874,
  screenScale: 3,
  updatedAt: 1791506444198,
  insets: { available: false, displayCutoutInfo: { classification: 'unknown' }, source: 'unavailable', units: 'unknown' },
  hierarchy: { className: 'Application', text: 'Settings', bounds: { left: 0, top: 0, right: 402, bottom: 874 } },
};

describe('systemInsets alias', () => {
  it.each<[string, Pick<ViewHierarchy, 'systemInsets' | 'insets'>, ViewHierarchy['systemInsets']]>([
    ["R-OBJ-03: the runner's own systemInsets", { systemInsets: { top: 59, left: 0, bottom: 34, right: 0 } }, { top: 59, left: 0, bottom: 34, right: 0 }],
    [
      "R-OBJ-03: the runner's own systemInsets win over the typed safe area",
      { systemInsets: { top: 59, left: 0, bottom: 34, right: 0 }, insets: { available: true, source: 'safeAreaInsets', units: 'points', safeArea: SAFE } },
      { top: 59, left: 0, bottom: 34, right: 0 },
    ],
    ['R-OBJ-03: else the available typed safe area', { insets: { available: true, source: 'safeAreaInsets', units: 'points', safeArea: SAFE } }, SAFE],
    ['R-OBJ-03: not an unavailable one', { insets: { available: false, source: 'unavailable', units: 'unknown', safeArea: SAFE } }, undefined],
    ['R-OBJ-03: nothing reported, no alias', {}, undefined],
  ])('%s', (_name, read, expected) => {
    expect(systemInsetsOf(read)).toEqual(expected);
  });

  it('R-OBJ-03: the assembled observation carries the alias beside insets, and the recorded Settings read carries none', () => {
    const stages = { strategy: 'visible' as const, flagEnabled: true, now: 1, discovery: undefined, bridge: undefined, web: undefined, timings: {} };
    const withEdges = assembleObservation({
      ...stages,
      hierarchy: { ok: true, hierarchy: { ...RECORDED_SETTINGS, insets: { available: true, source: 'safeAreaInsets', units: 'points', safeArea: SAFE } } },
    });
    expect(ObservationSchema.parse(withEdges).systemInsets).toEqual(SAFE);
    expect(withEdges.insets?.safeArea).toEqual(SAFE);
    const recorded = assembleObservation({ ...stages, hierarchy: { ok: true, hierarchy: RECORDED_SETTINGS } });
    expect(recorded.insets?.available).toBe(false);
    expect(recorded.systemInsets).toBeUndefined();
  });
});
