/**
 * What the exported Maestro flow would do on the screens a replay met (issue 27's figure,
 * docs/rules.md#r-rpl-10), so a replay's verdict can be checked against the hand-off rather than
 * against the replay's own judging: each recorded step is exported alone (`exportMaestroFlow`, the
 * export users run), the flow's YAML read back with the `yaml` library, and each command's selector
 * evaluated with Maestro's own matching rules (src-shared/selectors/maestro-match.ts: Filters.kt,
 * Orchestra.kt) on the XCTest view of the screen the replay read before that step.
 *
 * Maestro's behaviour per command (mobile-dev-inc/maestro `Orchestra.kt`): `tapOn`, `longPressOn`,
 * `doubleTapOn` and `assertVisible` wait for the element and fail the flow when none is found
 * ("Element not found"); with several they act on the first. `assertNotVisible` fails when one is
 * found. `inputText`, `pressKey`, `swipe`, `launchApp` name no element and run. A `point` (a
 * percentage of the screen, or points) is tapped whatever is there: the flow goes on, but when what lies
 * there now is not the recorded element (by id), the flow no longer does what was recorded, and that is
 * where it is said to fail.
 */
import { parseAllDocuments } from 'yaml';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, nodeAtKey, parentKeyOf } from '@shared/model/tree';
import { actionTargetAt } from '@shared/model/target';
import { boundsOf } from '@shared/model/node';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { filmstripNumbers, type TimelineStep } from '@shared/trace/reader';
import type { TraceManifest } from '@shared/trace/schema';
import { indexScreen } from '@shared/selectors/screen';
import { maestroFind } from '@shared/selectors/maestro-match';
import { maestroQuery, type MaestroSelector } from '@shared/selectors/maestro';

const FINDS = new Set(['tapOn', 'longPressOn', 'doubleTapOn', 'assertVisible']);

export interface MaestroVerdict {
  /** The filmstrip number of the first command that fails the flow; null when the flow passes. */
  failsAt: number | null;
  why: string;
  /**
   * The steps the flow holds a command for: a step recorded as failed or unfinished is a note in the
   * export, not a command, so the flow has no verdict on it.
   */
  exported: number[];
}

/** A command's value as a Maestro selector, or undefined when it names no element (a point). */
function selectorOf(value: unknown): MaestroSelector | undefined {
  if (typeof value === 'string') return { text: value };
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v['point'] !== undefined) return undefined;
  const selector: MaestroSelector = {};
  if (typeof v['id'] === 'string') selector.id = v['id'];
  if (typeof v['text'] === 'string') selector.text = v['text'];
  if (typeof v['index'] === 'number' || typeof v['index'] === 'string') selector.index = Number(v['index']);
  for (const key of ['enabled', 'checked', 'focused', 'selected'] as const) if (typeof v[key] === 'boolean') selector[key] = v[key];
  // The parent to search within (Orchestra.kt findElement), itself a selector or the text shorthand.
  const parent = v['childOf'] === undefined ? undefined : selectorOf(v['childOf']);
  if (parent) selector.childOf = parent;
  return selector;
}

/** A Maestro `point:` ("50%, 30%" of the screen, or "200, 400" in points) on `root`'s screen. */
function pointOn(text: string, root: UiNode): { x: number; y: number } | undefined {
  const m = /^\s*(-?[\d.]+)(%?)\s*,\s*(-?[\d.]+)(%?)\s*$/.exec(text);
  const screen = boundsOf(root);
  if (!m || !screen) return undefined;
  const x = Number(m[1]) * (m[2] ? (screen.right - screen.left) / 100 : 1);
  const y = Number(m[3]) * (m[4] ? (screen.bottom - screen.top) / 100 : 1);
  return { x, y };
}

/** The ids of what a finger at `point` hits (the UI's picking rule) and of its ancestors: a cell's label is the cell's tap. */
function idsAt(root: UiNode, point: { x: number; y: number }): string[] {
  const nodes = flattenTree(root);
  const hit = actionTargetAt(nodes, point.x, point.y);
  const ids: string[] = [];
  for (let key: string | null = hit?.key ?? null; key !== null; key = parentKeyOf(key)) {
    const id = nodeAtKey(root, key)?.['resource-id'];
    if (typeof id === 'string' && id !== '') ids.push(id);
  }
  return ids;
}

/** How many elements Maestro finds for `selector` on `root`, by its own rules, among what XCTest reports. */
export function maestroCount(selector: MaestroSelector, root: UiNode): number {
  const view = indexScreen(root).xctest;
  return maestroFind(view, maestroQuery(selector), view.members()).length;
}

/**
 * The exported flow run against `screens` (the replay's before-screen of each step, by callId): the
 * first step whose command would fail, or null.
 */
export function maestroFlowOn(
  trace: { manifest: TraceManifest; timeline: readonly TimelineStep[] },
  observations: ReadonlyMap<string, unknown>,
  screens: ReadonlyMap<string, UiNode>,
): MaestroVerdict {
  const numbers = filmstripNumbers(trace.timeline);
  const exported: number[] = [];
  for (const step of trace.timeline) {
    if (step.kind !== 'action') continue;
    const number = numbers.get(step.callId) ?? 0;
    const flow = exportMaestroFlow(trace.manifest, [step], observations);
    // Not exported (a recorded failure, an action with no Maestro form): a note, no command to run.
    if (flow.notes.some((n) => n.callId === step.callId)) continue;
    exported.push(number);
    const commands = parseAllDocuments(flow.yaml)[1]?.toJS() as unknown;
    if (!Array.isArray(commands)) continue;
    const screen = screens.get(step.callId);
    for (const command of commands as unknown[]) {
      if (typeof command !== 'object' || command === null) continue;
      const [name, value] = Object.entries(command as Record<string, unknown>)[0] ?? [];
      if (name === undefined || (!FINDS.has(name) && name !== 'assertNotVisible')) continue;
      const point = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['point'] : undefined;
      const recordedId = step.before?.target?.xctest?.['resource-id'] ?? step.before?.target?.node?.['resource-id'];
      if (typeof point === 'string' && screen && typeof recordedId === 'string') {
        const at = pointOn(point, screen);
        const ids = at ? idsAt(screen, at) : [];
        const hit = ids.includes(recordedId) ? recordedId : ids[0];
        if (hit !== recordedId)
          return { failsAt: number, why: `step ${number}: ${name} at ${point} hits ${hit ?? 'no element with an id'}, recorded ${recordedId}`, exported };
        continue;
      }
      const selector = selectorOf(value);
      if (!selector) continue;
      if (!screen) return { failsAt: number, why: `step ${number}: the replay read no screen to run ${name} on`, exported };
      const found = maestroCount(selector, screen);
      if (name === 'assertNotVisible' ? found > 0 : found === 0) {
        return { failsAt: number, why: `step ${number}: ${name} ${JSON.stringify(selector)} finds ${found}`, exported };
      }
    }
  }
  return { failsAt: null, why: 'every command finds its element', exported };
}
