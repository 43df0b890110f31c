/** What doctor says an AppReveal app can show, from the tools it registered (docs/rules.md#r-qa-15). */
import { describe, expect, it } from 'vitest';
import { appRevealInspectCheck, doctorExitCode } from '@shared/inspect/doctor';

describe('R-QA-15: the inspect check of an AppReveal app', () => {
  it('only the always-present tools (the Tauri example): nothing to inspect, a failure', () => {
    const check = appRevealInspectCheck(['batch', 'device_info', 'get_state', 'launch_context']);
    expect(check).toMatchObject({ id: 'inspect', status: 'fail' });
    expect(check.detail).toBe(
      'nothing to inspect: no element tree (get_elements); no screenshot; typing with no field named is refused (no get_view_tree to say which field has focus)',
    );
    expect(doctorExitCode([check])).toBe(1);
  });

  it('the Tauri UI tools (elements, no screenshot, no view tree): shown with gaps, a warning', () => {
    const check = appRevealInspectCheck(['get_elements', 'tap_element', 'type_text', 'get_dom_interactive']);
    expect(check.status).toBe('warn');
    expect(check.detail).toMatch(/^shown with gaps: no screenshot; typing with no field named is refused/);
    expect(doctorExitCode([check])).toBe(0);
  });

  it('the iOS tools: ok', () => {
    expect(appRevealInspectCheck(['get_elements', 'screenshot', 'get_view_tree']).status).toBe('ok');
  });
});
