/**
 * The demo device's admin endpoint (docs/protocol.md#p-demo-admin), as the demo serves it and the host
 * reads it on the renderer's behalf: only the host talks to it, and only for a device that is the demo
 * (docs/rules.md#r-qa-18).
 */
import { z } from 'zod';

/** What a fault's value is: none (a flag), milliseconds, a UInt64, a count, a reason word, a coordinate space, a runner command. */
export const DEMO_FAULT_VALUES = ['flag', 'ms', 'uint64', 'count', 'reason', 'space', 'command'] as const;
export type DemoFaultValue = (typeof DEMO_FAULT_VALUES)[number];

/** What the demo runner's `GET /health` says, beside a real runner's `status`: who it is. */
export const DEMO_DEVICE_NAME = 'parallax-demo';
export const DemoHealthSchema = z.object({ status: z.string(), device: z.literal(DEMO_DEVICE_NAME) });

/**
 * The demo screen a tree shows: the demo app marks each screen's root view `screen.<name>`, near the top
 * of the tree (XCTest's window, then the screen). Only the first three levels are looked at, so a
 * 50,000-node screen costs nothing; undefined when no mark is there (not the demo, or no tree).
 */
export function demoScreenIn(root: { 'resource-id'?: string | undefined; node?: readonly unknown[] | undefined } | null | undefined): string | undefined {
  let level: unknown[] = root ? [root] : [];
  for (let depth = 0; depth < 3 && level.length > 0; depth++) {
    const below: unknown[] = [];
    for (const raw of level) {
      if (typeof raw !== 'object' || raw === null) continue;
      const node = raw as { 'resource-id'?: unknown; node?: unknown };
      const id = node['resource-id'];
      const mark = typeof id === 'string' ? /^screen\.([a-z]+)$/.exec(id)?.[1] : undefined;
      if (mark) return mark;
      if (Array.isArray(node.node)) below.push(...(node.node as unknown[]));
    }
    level = below;
  }
  return undefined;
}

const Name = z.string().min(1).max(64);
/** `name` or `name=value`. */
const FaultSpec = z.string().min(1).max(200);

/** `GET /admin/faults`: the active faults and every fault the demo knows, with its help text and value kind. */
export const DemoFaultsAnswerSchema = z.object({
  faults: z.array(FaultSpec).max(64),
  known: z
    .array(
      z.object({
        name: Name,
        help: z.string().max(1000),
        value: z.enum(DEMO_FAULT_VALUES),
      }),
    )
    .max(128),
});
export type DemoFaultsAnswer = z.infer<typeof DemoFaultsAnswerSchema>;

/** `POST /admin/faults`: `{faults}` once the app follows the change. */
export const DemoFaultsChangedSchema = z.object({ faults: z.array(FaultSpec).max(64) });

/** `GET /admin/screen`: the screen shown and the screens there are. */
export const DemoScreenAnswerSchema = z.object({ screen: Name, screens: z.array(Name).max(64) });

/** The largest admin answer the host reads. */
export const MAX_DEMO_ADMIN_BYTES = 64 * 1024;

/** The most demo devices one host starts (`--demo-devices N`): one shared browser holds them. */
export const MAX_DEMO_DEVICES = 16;
