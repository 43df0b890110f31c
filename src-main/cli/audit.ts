/**
 * `parallax audit`: the accessibility audit (docs/rules.md#r-a11y) for CI and bug reports.
 *   parallax audit --device URL [--json] [--fail-on error|warning] [--report FILE.html|FILE.md]
 *   parallax audit TRACE [--json] [--fail-on error|warning] [--report FILE.html|FILE.md]
 * Exit 0 when no finding at the --fail-on level (or worse) exists, 1 when one does, 2 for a wrong command line.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pngjs from 'pngjs';
import { htmlReport, markdownReport, type ReportScreen } from '@shared/a11y/report';
import type { A11ySeverity, AccessibilityAudit } from '@shared/protocol/accessibility';
import { A11Y_SEVERITIES } from '@shared/protocol/accessibility';
import { connectionFor } from '@main/devices/manager';
import { openTraceFile } from '@main/trace/open';
import { describeTarget } from '@main/trace/view-steps';
import { auditFrame, auditStoredFrame, decodeScreenshot, storedFrameRoot } from '@main/a11y/audit-frame';
import { filmstripNumbers } from '@shared/trace/reader';
import { recordedActionText } from '@shared/trace/action-record';
import { visibleText } from '@shared/model/visible-text';

export class AuditUsageError extends Error {}

type Out = { log: (line: string) => void; error: (line: string) => void };

interface Audited extends ReportScreen {
  screenshotBase64?: string | undefined;
}

/** The finding's frame cut out of the screenshot (with 8 pt around it), as a PNG data URL. */
function crops(audit: AccessibilityAudit, screenshotBase64: string | undefined, screenWidth: number | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!screenshotBase64 || !screenWidth) return out;
  let pixels;
  try {
    pixels = decodeScreenshot(screenshotBase64);
  } catch {
    return out;
  }
  const scale = pixels.width / screenWidth;
  for (const f of audit.violations) {
    const x0 = Math.max(0, Math.floor((f.bounds.left - 8) * scale));
    const y0 = Math.max(0, Math.floor((f.bounds.top - 8) * scale));
    const x1 = Math.min(pixels.width, Math.ceil((f.bounds.right + 8) * scale));
    const y1 = Math.min(pixels.height, Math.ceil((f.bounds.bottom + 8) * scale));
    if (x1 <= x0 || y1 <= y0 || (x1 - x0) * (y1 - y0) > 1_500_000) continue;
    const crop = new pngjs.PNG({ width: x1 - x0, height: y1 - y0 });
    for (let y = y0; y < y1; y++) {
      const from = (y * pixels.width + x0) * 4;
      crop.data.set(pixels.data.subarray(from, from + (x1 - x0) * 4), (y - y0) * (x1 - x0) * 4);
    }
    out.set(f.fingerprint, `data:image/png;base64,${pngjs.PNG.sync.write(crop).toString('base64')}`);
  }
  return out;
}

async function auditDevice(url: string, timeoutMs: number): Promise<Audited[]> {
  const connection = connectionFor(url, { runner: { handshakeTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs } });
  connection.start();
  try {
    await connection.waitUntilConnected(timeoutMs);
    const frame = await connection.observe({ strategy: 'visible', xctestOnly: false, screenshot: true });
    const audit = auditFrame(frame);
    if (!audit || !frame.observation) throw new Error('the device sent no observation');
    return [{ title: url, audit, root: frame.observation.viewHierarchy?.hierarchy, screenshotBase64: frame.screenshot?.dataBase64 }];
  } finally {
    await connection.close();
  }
}

/**
 * Every stored frame of every step of a trace (docs/rules.md#r-a11y-14): an action's screen before it and
 * after it, an observation step's observations, each audited offline from what the trace stored
 * (`auditStoredFrame`: the screenshot decoded here, a ViewHierarchy judged on the application's frame).
 * Steps are numbered as the trace view numbers them; a frame whose JSON is no screen is passed over.
 */
async function auditTrace(path: string): Promise<Audited[]> {
  const trace = await openTraceFile(path);
  const numbers = filmstripNumbers(trace.timeline);
  const out: Audited[] = [];
  let last = 0;
  for (const step of trace.timeline) {
    const number = numbers.get(step.callId);
    if (number !== undefined) last = number;
    const frames: Array<[string, { observationRef?: string | undefined; screenshotRef?: string | undefined } | undefined]> =
      step.kind === 'action'
        ? [
            ['before', step.before],
            ['after', step.after],
          ]
        : step.observations.map((o) => ['', o]);
    // Display text, as the trace view shows the action (docs/rules.md#r-show-01).
    const action = step.before
      ? `${visibleText([recordedActionText(step.before.action), describeTarget(step.before.target)].filter(Boolean).join(' '))} (${step.statusText})`
      : step.statusText;
    const title = (when: string) =>
      number !== undefined
        ? `Step ${number} ${when}: ${action}`
        : step.kind === 'action'
          ? `An action recorded without its before, ${when}: ${action}`
          : last > 0
            ? `Observation after step ${last}`
            : 'Observation before step 1';
    for (const [when, refs] of frames) {
      if (!refs?.observationRef) continue;
      const stored = await trace.resourceJson(refs.observationRef);
      const png = refs.screenshotRef && trace.hasResource(refs.screenshotRef) ? await trace.resource(refs.screenshotRef) : undefined;
      const audit = auditStoredFrame(stored, png);
      if (!audit) continue;
      out.push({
        title: title(when),
        audit,
        root: storedFrameRoot(stored),
        screenshotBase64: png?.toString('base64'),
      });
    }
  }
  return out;
}

export async function runAuditCommand(args: string[], out: Out): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        device: { type: 'string' },
        json: { type: 'boolean' },
        'fail-on': { type: 'string' },
        report: { type: 'string' },
        timeout: { type: 'string' },
      },
    });
  } catch (error) {
    throw new AuditUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const failOn = values['fail-on'] ?? 'error';
  if (failOn !== 'error' && failOn !== 'warning') throw new AuditUsageError(`--fail-on is error or warning, not "${failOn}"`);
  if (values.device && positionals.length > 0) throw new AuditUsageError('audit takes --device URL or a TRACE, not both');
  if (!values.device && positionals.length !== 1) throw new AuditUsageError('audit needs --device URL or exactly one TRACE');
  if (values.device && !/^(wss?|https?):\/\//.test(values.device))
    throw new AuditUsageError('--device must be a ws:// runner URL or an http:// AppReveal session URL');
  if (values.report && !/\.(html?|md)$/i.test(values.report)) throw new AuditUsageError('--report names a .html or .md file');
  const timeoutMs = values.timeout ? Number(values.timeout) : 10_000;

  const screens = values.device ? await auditDevice(values.device, timeoutMs) : await auditTrace(positionals[0]!);
  const levels = A11Y_SEVERITIES.slice(0, A11Y_SEVERITIES.indexOf(failOn as A11ySeverity) + 1);
  const failing = screens.reduce((n, s) => n + s.audit.violations.filter((f) => levels.includes(f.severity)).length, 0);

  if (values.report) {
    const width = (s: Audited) => (s.root?.bounds ? s.root.bounds.right - s.root.bounds.left : undefined);
    const withCrops = screens.map((s) => ({ ...s, crops: crops(s.audit, s.screenshotBase64, width(s)) }));
    await writeFile(values.report, /\.md$/i.test(values.report) ? markdownReport(withCrops) : htmlReport(withCrops));
  }
  if (values.json) {
    out.log(JSON.stringify({ screens: screens.map((s) => ({ title: s.title, accessibilityAudit: s.audit })), failOn, failing }, null, 2));
  } else {
    for (const s of screens) {
      out.log(`${s.title}: ${s.audit.summary.total} findings`);
      for (const f of s.audit.violations) out.log(`  ${f.severity.padEnd(7)} ${f.rule} ${f.kind}: ${f.message}`);
      for (const n of s.audit.summary.notEvaluated) out.log(`  not evaluated: ${n.kind} (${n.reason})`);
    }
  }
  return failing > 0 ? 1 : 0;
}
