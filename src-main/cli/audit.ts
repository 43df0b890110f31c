/**
 * `parallax audit`: the accessibility audit (docs/rules.md#r-a11y) for CI and bug reports.
 *   parallax audit --device URL [--json] [--fail-on error|warning] [--report FILE.html|FILE.md]
 *   parallax audit TRACE [--json] [--fail-on error|warning] [--report FILE.html|FILE.md]
 * Exit codes (docs/rules.md#r-a11y-14), each its own so CI can tell a regression from a broken pipeline:
 *   0 clean: no finding at the --fail-on level (or worse); 1 findings at that level; 2 a wrong command line;
 *   3 unauditable: no verdict could be given (the device unreachable or sending no observation, the trace
 *   unreadable or refused, no screen in it to audit, the report not written).
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pngjs from 'pngjs';
import { htmlReport, markdownReport } from '@shared/a11y/report';
import type { A11ySeverity, AccessibilityAudit } from '@shared/protocol/accessibility';
import { A11Y_SEVERITIES } from '@shared/protocol/accessibility';
import { connectionFor } from '@main/devices/manager';
import { inTraceWorker } from '@main/trace/off-thread';
import { auditFrame, decodeScreenshot } from '@main/a11y/audit-frame';
import type { AuditedScreen } from '@main/trace/audit-screens';

export class AuditUsageError extends Error {}
/** Nothing could be audited, or the result not delivered: exit 3, never 0 or 1 (a CI job must not read it as clean or as findings). */
export class UnauditableError extends Error {}

export const AUDIT_EXIT = { clean: 0, findings: 1, usage: 2, unauditable: 3 } as const;

type Out = { log: (line: string) => void; error: (line: string) => void };

type Audited = AuditedScreen;

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
 * A trace's stored frames, audited in the trace worker (docs/rules.md#r-mem-04, audit-screens.ts): a huge or
 * hostile trace costs that thread's bounded heap and is refused as too_large; the screens come one a part.
 */
async function auditTrace(path: string): Promise<Audited[]> {
  const out: Audited[] = [];
  await inTraceWorker('audit', resolve(path), undefined, { onPart: (screens) => void out.push(...screens) });
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
  const timeoutMs = values.timeout === undefined ? 10_000 : Number(values.timeout);
  // A timeout that is not a number would wait forever (NaN) or not at all: said, not guessed.
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new AuditUsageError(`--timeout is a number of milliseconds above 0, not "${values.timeout}"`);

  let screens: Audited[];
  try {
    screens = values.device ? await auditDevice(values.device, timeoutMs) : await auditTrace(positionals[0]!);
  } catch (error) {
    throw new UnauditableError(`cannot audit ${values.device ?? positionals[0]}: ${(error as Error).message}`);
  }
  // A trace with no stored screen passes nothing: said, not reported clean.
  if (screens.length === 0) throw new UnauditableError(`cannot audit ${positionals[0]}: the trace stores no screen to audit`);
  const levels = A11Y_SEVERITIES.slice(0, A11Y_SEVERITIES.indexOf(failOn as A11ySeverity) + 1);
  const failing = screens.reduce((n, s) => n + s.audit.violations.filter((f) => levels.includes(f.severity)).length, 0);

  if (values.report) {
    const width = (s: Audited) => (s.root?.bounds ? s.root.bounds.right - s.root.bounds.left : undefined);
    const withCrops = screens.map((s) => ({ ...s, crops: crops(s.audit, s.screenshotBase64, width(s)) }));
    try {
      await writeFile(values.report, /\.md$/i.test(values.report) ? markdownReport(withCrops) : htmlReport(withCrops));
    } catch (error) {
      throw new UnauditableError(`the report ${values.report} was not written: ${(error as Error).message}`);
    }
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
  return failing > 0 ? AUDIT_EXIT.findings : AUDIT_EXIT.clean;
}
