/**
 * The wait a delay fault (`xctest-slow=MS`, `bridge-action-slow=MS`) makes: MS, or less, since clearing the
 * fault ends it at once. So a test holds a read or an action for as long as it needs (a value far past
 * anything it waits for) and lets it go by clearing the fault: a gate the test opens, where a timer would
 * race the machine's load (docs/rules.md#r-suite-01).
 */
import type { FaultName, Faults } from '@demo/phone/faults';

/** The holds waiting on each fault set; one `changed` listener per set, however many holds wait. */
const waiting = new WeakMap<Faults, Set<{ name: FaultName; release: () => void }>>();

/** Resolves after the fault's MS, or as soon as the fault is cleared; at once when it is not set. */
export function holdFor(faults: Faults, name: FaultName): Promise<void> {
  const ms = faults.number(name) ?? 0;
  if (ms <= 0) return Promise.resolve();
  let holds = waiting.get(faults);
  if (!holds) {
    const set = new Set<{ name: FaultName; release: () => void }>();
    faults.on('changed', (names) => {
      for (const hold of [...set]) if (names.includes(hold.name) && !faults.has(hold.name)) hold.release();
    });
    waiting.set(faults, (holds = set));
  }
  const set = holds;
  return new Promise<void>((resolve) => {
    const hold = {
      name,
      release: () => {
        clearTimeout(timer);
        set.delete(hold);
        resolve();
      },
    };
    const timer = setTimeout(hold.release, ms);
    set.add(hold);
  });
}
