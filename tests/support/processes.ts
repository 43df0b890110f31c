/** Whether a process still runs, for tests that start and end processes (Linux's /proc). */
import { readFileSync } from 'node:fs';

/** Whether `pid` is a live process (a zombie, ended and not yet reaped by whoever adopted it, is not). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits (up to a wide 60 s: a loaded machine) for `pid` to be gone; true once it is. */
export async function gone(pid: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 50))) if (!alive(pid)) return true;
  return false;
}
