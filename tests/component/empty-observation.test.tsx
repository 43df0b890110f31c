// @vitest-environment jsdom
/**
 * R-AR-31 in the UI: an observation with nothing to inspect says why instead of a blank screen, with the
 * same reasons `parallax observe` prints (emptyObservationReasons), built here by the same projection the
 * AppReveal connection uses (appRevealObservation).
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Frame } from '@shared/protocol/device';
import { appRevealObservation, type AppRevealElementsRead } from '@shared/observe/appreveal';
import { EmptyObservation } from '@renderer/components/EmptyObservation';

function frame(elements: AppRevealElementsRead, readErrors: Array<{ tool: string; message: string }> = []): Frame {
  const observation = appRevealObservation({ strategy: 'visible', now: 1, elements, geometry: { width: 402, height: 874 }, readErrors });
  return { deviceId: 'ar1', observation, screenshot: null, receivedAt: 1 } as Frame;
}

afterEach(() => cleanup());

describe('EmptyObservation', () => {
  it('R-AR-31: an app that lists no elements says so, with each failed read, as an error', () => {
    render(<EmptyObservation frame={frame({ kind: 'read', elements: [] }, [{ tool: 'get_screen', message: 'no key window' }])} />);
    const notice = screen.getByTestId('empty-observation');
    expect(notice.getAttribute('role')).toBe('alert');
    const reasons = screen.getAllByTestId('empty-observation-reason').map((li) => li.textContent);
    expect(reasons.length).toBe(2);
    expect(reasons[1]).toContain('get_screen: no key window');
  });

  it('R-AR-31: an app without get_elements, and one whose get_elements failed, say which', () => {
    const { unmount } = render(<EmptyObservation frame={frame({ kind: 'not_offered' })} />);
    expect(screen.getByTestId('empty-observation').textContent).toMatch(/get_elements/);
    unmount();
    render(<EmptyObservation frame={frame({ kind: 'failed', message: 'the app timed out' })} />);
    expect(screen.getByTestId('empty-observation').textContent).toContain('the app timed out');
  });

  it('R-AR-31: an observation with elements shows no notice', () => {
    const element = {
      id: 'a',
      type: 'button',
      enabled: true,
      visible: true,
      tappable: true,
      frame: { x: 0, y: 0, width: 10, height: 10 },
      actions: ['tap'],
      ocr: false,
    };
    render(<EmptyObservation frame={frame({ kind: 'read', elements: [element] })} />);
    expect(screen.queryByTestId('empty-observation')).toBeNull();
  });
});
