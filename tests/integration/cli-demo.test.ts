/**
 * The action commands against the demo device, through the real `parallax` command: one app, reached
 * both through its runner and through its embedded AppReveal server (issues 5 and 7).
 */
import { describe, expect, it } from 'vitest';
import { useCliOverDemo } from '../support/host-over-demo';

const cli = useCliOverDemo();
const parallax = cli.parallax;

async function resetToLogin() {
  await fetch(`${cli.demo.adminUrl}/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"screen":"login"}' });
}

describe('parallax action commands on the demo device', () => {
  it('tap --id through the runner goes through the SDK bridge and exits 0', async () => {
    await resetToLogin();
    const { code, stdout } = await parallax('tap', '--device', cli.demo.runnerUrl, '--id', 'login.submit', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ success: true, backend: 'sdk' });
  });

  it('R-TAP-10, R-TAP-11: parallax tap --point X,Y taps X,Y and names what is there; a point off the screen is refused', async () => {
    await resetToLogin();
    const before = ((await (await fetch(`${cli.demo.adminUrl}/stats`)).json()) as { requests: Record<string, number> }).requests;
    const { code, stdout } = await parallax('tap', '--device', cli.demo.runnerUrl, '--point', '50,240', '--json');
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    // The field's centre is elsewhere (201, 244): the point itself is what was sent.
    expect(result).toMatchObject({ success: true, outcome: 'done', target: { resolvedBy: 'point', point: { x: 50, y: 240 }, label: 'Username' } });
    expect(result.backend).toBeUndefined();
    const after = ((await (await fetch(`${cli.demo.adminUrl}/stats`)).json()) as { requests: Record<string, number> }).requests;
    expect((after.request_tap_coordinates ?? 0) - (before.request_tap_coordinates ?? 0)).toBe(1);
    expect((after.request_sdk_action ?? 0) - (before.request_sdk_action ?? 0)).toBe(0);

    const off = await parallax('tap', '--device', cli.demo.runnerUrl, '--point', '500,100', '--json');
    expect(off.code).toBe(1);
    expect(JSON.parse(off.stdout)).toMatchObject({ success: false, outcome: 'refused', failureReason: 'point_off_screen', mayHaveRun: false });
  });

  it('R-UI-TITLE: tap names what it acted on as the tree does (type, label, id) with its real frame, never the bridge\u2019s index id', async () => {
    await resetToLogin();
    // The first "Sign In" in screen order is the navigation bar's title, a label the bridge knows only as UILabel@0.0.0.0.
    const byText = await parallax('tap', '--device', cli.demo.runnerUrl, '--text', 'Sign In');
    expect(byText.code).toBe(0);
    expect(byText.stdout).toMatch(/^tap StaticText "Sign In" \(x 16, y 119, 133 × 41 pt\): ok backend=sdk /);
    expect(byText.stdout).not.toContain('UILabel@');

    await resetToLogin();
    const byId = await parallax('tap', '--device', cli.demo.runnerUrl, '--id', 'login.submit');
    expect(byId.stdout).toMatch(/^tap Button "Sign In" · login\.submit \(x 16, y 330, 370 × 50 pt\): ok /);

    await resetToLogin();
    const byPoint = await parallax('tap', '--device', cli.demo.runnerUrl, '--point', '50,240');
    expect(byPoint.stdout).toMatch(/^tap 50,240 \(TextField "Username" · login\.username there, x 16, y 222, 370 × 44 pt\): ok /);
  });

  it('R-UI-TITLE: observe prints each element as the tree names it, with its frame in points', async () => {
    await resetToLogin();
    const { code, stdout } = await parallax('observe', '--device', cli.demo.runnerUrl);
    expect(code).toBe(0);
    expect(stdout).toContain('\n      StaticText "Sign In" (x 16, y 119, 133 × 41 pt)\n');
    expect(stdout).toContain('\n    Button "Sign In" · login.submit (x 16, y 330, 370 × 50 pt)\n');
    expect(stdout).not.toMatch(/UILabel@/);
  });

  it('tap --id with an AppReveal session URL goes through AppReveal (backend appreveal)', async () => {
    await resetToLogin();
    const { code, stdout, stderr } = await parallax('tap', '--device', cli.demo.appRevealUrl ?? '', '--id', 'login.submit', '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ success: true, backend: 'appreveal', requestsSent: 1 });
  });

  it('type with an AppReveal session URL types into the field, and the runner sees the text', async () => {
    await resetToLogin();
    const typed = await parallax('type', '--device', cli.demo.appRevealUrl ?? '', '--id', 'login.username', '--text-to-type', 'qa@example.com', '--json');
    expect(typed.code).toBe(0);
    const observed = await parallax('observe', '--device', cli.demo.runnerUrl, '--json', '--xctest-only');
    expect(observed.stdout).toContain('qa@example.com');
  });

  it('a tap_text the app cannot resolve fails closed with the app’s words, and exit code 1', async () => {
    await resetToLogin();
    // The lead text is a static label: ElementInventory.swift findElementByText finds no tappable ancestor.
    const lead = 'Welcome back. Sign in to continue.';
    const { code, stdout } = await parallax('tap', '--device', cli.demo.appRevealUrl ?? '', '--text', lead, '--json');
    expect(code).toBe(1);
    const result = JSON.parse(stdout) as { failureReason: string; mayHaveRun: boolean; deviceMessage: string };
    expect(result).toMatchObject({ failureReason: 'appreveal_tool_error', mayHaveRun: false });
    expect(result.deviceMessage).toBe(`Text "${lead}" found but no tappable ancestor. The text is a static label.`);
  });

  it('a long press has no AppReveal form: fails closed, nothing sent', async () => {
    const { code, stdout } = await parallax('tap', '--device', cli.demo.appRevealUrl ?? '', '--id', 'login.submit', '--long-press', '800', '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ failureReason: 'appreveal_unknown_tool', requestsSent: 0 });
  });
});
