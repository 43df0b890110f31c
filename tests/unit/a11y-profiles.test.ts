// The device profile the Accessibility panel's mutes are kept in (docs/rules.md#r-a11y-17), and the
// panel's grouping of findings: a mute survives a new connection and a new start of the host (the
// settings file), never loses the file's other settings, and a muted finding is counted, never dropped.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeviceProfileError, DeviceProfiles, MAX_MUTED_PER_DEVICE } from '@main/a11y/profiles';
import { ManualEntries } from '@main/discovery/manual';
import { panelFindings } from '@shared/a11y';
import type { A11yFinding } from '@shared/protocol/accessibility';

const settings = () => join(mkdtempSync(join(tmpdir(), 'parallax-profiles-')), 'settings.json');
const DEMO = 'ws://127.0.0.1:9100/ws';

describe('R-A11Y-17 mutes are kept in the device profile', () => {
  it('R-A11Y-17 a mute is read back by a new host start (a new instance on the same file), per device URL', async () => {
    const path = settings();
    const first = new DeviceProfiles(path);
    expect(await first.setMuted(DEMO, 'R-A11Y-07|login.submit', true)).toEqual(['R-A11Y-07|login.submit']);
    await first.setMuted(DEMO, 'R-A11Y-01|label:Chat', true);
    const again = new DeviceProfiles(path);
    expect(await again.muted(DEMO)).toEqual(['R-A11Y-07|login.submit', 'R-A11Y-01|label:Chat']);
    expect(await again.muted('ws://127.0.0.1:9200/ws')).toEqual([]);
    expect(await again.setMuted(DEMO, 'R-A11Y-07|login.submit', false)).toEqual(['R-A11Y-01|label:Chat']);
    expect(await new DeviceProfiles(path).muted(DEMO)).toEqual(['R-A11Y-01|label:Chat']);
  });

  it('R-A11Y-17 the settings file keeps its manual devices beside the profiles, whichever writes last', async () => {
    const path = settings();
    const manual = new ManualEntries(path);
    await manual.add({ url: 'ws://10.0.0.5:9100/ws' });
    await new DeviceProfiles(path).setMuted(DEMO, 'R-A11Y-05|at:0,0,40x40', true);
    await manual.add({ url: 'ws://10.0.0.6:9100/ws' });
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.manualDevices).toHaveLength(2);
    expect(file.deviceProfiles[DEMO].a11yMuted).toEqual(['R-A11Y-05|at:0,0,40x40']);
  });

  it('R-A11Y-17 a corrupt file or profile starts empty and says so; a bad profile does not take the others with it', async () => {
    const path = settings();
    writeFileSync(path, '{not json');
    const broken = new DeviceProfiles(path);
    expect(await broken.muted(DEMO)).toEqual([]);
    expect(broken.loadError).toMatch(/not a settings file/);
    writeFileSync(path, JSON.stringify({ deviceProfiles: { [DEMO]: { a11yMuted: ['R-A11Y-03|x'] }, other: { a11yMuted: 'not a list' } } }));
    expect(await new DeviceProfiles(path).muted(DEMO)).toEqual(['R-A11Y-03|x']);
  });

  it('R-A11Y-17 a profile is never keyed by a URL holding an AppReveal session token; a long list keeps the newest', async () => {
    const profiles = new DeviceProfiles(settings());
    await expect(profiles.setMuted('http://127.0.0.1:7000/?appreveal_session_token=abc', 'R-A11Y-03|x', true)).rejects.toBeInstanceOf(DeviceProfileError);
    for (let i = 0; i <= MAX_MUTED_PER_DEVICE; i++) await profiles.setMuted(DEMO, `R-A11Y-03|n${i}`, true);
    const kept = await profiles.muted(DEMO);
    expect(kept).toHaveLength(MAX_MUTED_PER_DEVICE);
    expect(kept[0]).toBe('R-A11Y-03|n1');
    expect(kept.at(-1)).toBe(`R-A11Y-03|n${MAX_MUTED_PER_DEVICE}`);
  }, 60_000);
});

const finding = (rule: string, kind: A11yFinding['kind'], severity: A11yFinding['severity'], id: string): A11yFinding => ({
  rule,
  kind,
  severity,
  nodeKey: '0',
  element: { source: 'xctest', id },
  bounds: { left: 0, top: 0, right: 10, bottom: 10 },
  message: '',
  evidence: {},
  fix: '',
  fingerprint: `${rule}|${id}`,
});

describe('R-A11Y-17 the panel groups findings by severity, then kind; a muted one is counted, not dropped', () => {
  it('R-A11Y-17 groups, order and counts', () => {
    const list = panelFindings(
      [
        finding('R-A11Y-07', 'hitRegion', 'warning', 'a'),
        finding('R-A11Y-09', 'contrast', 'error', 'b'),
        finding('R-A11Y-07', 'hitRegion', 'warning', 'c'),
        finding('R-A11Y-01', 'elementDetection', 'error', 'd'),
      ],
      ['R-A11Y-07|a'],
    );
    expect(list.groups.map((g) => `${g.severity} ${g.kind} ${g.findings.map((f) => `${f.finding.element.id}${f.muted ? '(muted)' : ''}`).join(',')}`)).toEqual([
      'error elementDetection d',
      'error contrast b',
      'warning hitRegion c,a(muted)',
    ]);
    expect({ open: list.open, muted: list.muted, openBySeverity: list.openBySeverity }).toEqual({
      open: 3,
      muted: 1,
      openBySeverity: { error: 2, warning: 1, info: 0 },
    });
  });
});
