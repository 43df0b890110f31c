/**
 * Every stored frame of every step of a trace, audited (docs/rules.md#r-a11y-14): an action's screen before
 * it and after it, an observation step's observations, each audited offline from what the trace stored
 * (`auditStoredFrame`: the screenshot decoded here, a ViewHierarchy judged on the application's frame).
 * Steps are numbered as the trace view numbers them; a frame whose JSON is no screen is passed over.
 * Run in the trace worker (`parallax audit TRACE`, docs/rules.md#r-mem-04), one screen at a time.
 */
import type { ReportScreen } from '@shared/a11y/report';
import { filmstripNumbers } from '@shared/trace/reader';
import { recordedActionText } from '@shared/trace/action-record';
import { visibleText } from '@shared/model/visible-text';
import type { OpenedTrace } from './open';
import { describeTarget } from './view-steps';
import { auditStoredFrame, storedFrameRoot } from '@main/a11y/audit-frame';

/** A screen of the audit: its title, findings and tree, and the screenshot the report's crops are cut from. */
export interface AuditedScreen extends ReportScreen {
  screenshotBase64?: string | undefined;
}

export async function* auditedScreens(trace: OpenedTrace): AsyncGenerator<AuditedScreen> {
  const numbers = filmstripNumbers(trace.timeline);
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
      yield { title: title(when), audit, root: storedFrameRoot(stored), screenshotBase64: png?.toString('base64') };
    }
  }
}
