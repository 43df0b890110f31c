/**
 * A vitest reporter beside the default one: at the end of a run, the ten test files that took longest
 * (tests and hooks, then what importing them and setting up their environment cost), and those costs
 * summed over every file, so CI's log says where the unit and integration stage spent its time
 * (issue 29.4: the suite under 20 minutes on 2 cores). Asserts nothing. With PARALLAX_RECORD_DURATIONS=1
 * a run of every file also rewrites tests/support/file-durations.json, the time each file held its worker,
 * by which the sequencer starts the longest first (tests/support/longest-first.ts).
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { DURATIONS_FILE, fileKey } from './longest-first';

/**
 * The committed file's text, as `prettier --check` (the lint stage) accepts it: a stress run that recorded
 * with one-space indents failed its next two runs at lint.
 */
export function durationsText(files: Record<string, number>, at: Date): string {
  return `${JSON.stringify({ recorded: at.toISOString().slice(0, 10), files }, null, 2)}\n`;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class SlowestFiles implements Reporter {
  private root = '';

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length < 2) return;
    if (process.env.PARALLAX_RECORD_DURATIONS === '1') this.record(modules);
    const rows = modules.map((m) => ({ file: m.relativeModuleId, d: m.diagnostic() }));
    const sum = (pick: (d: (typeof rows)[number]['d']) => number) => rows.reduce((total, r) => total + pick(r.d), 0);
    const lines = rows
      .sort((a, b) => b.d.duration - a.d.duration)
      .slice(0, 10)
      .map((r) => `  ${s(r.d.duration).padStart(8)} tests  ${s(r.d.collectDuration + r.d.environmentSetupDuration).padStart(7)} import+env  ${r.file}`);
    console.log(
      `\nslowest test files (of ${rows.length}; summed over all: tests ${s(sum((d) => d.duration))}, import ${s(sum((d) => d.collectDuration))}, environment ${s(sum((d) => d.environmentSetupDuration))}, prepare ${s(sum((d) => d.prepareDuration))}):\n${lines.join('\n')}`,
    );
  }

  /** The time each file held its worker (prepare, environment, import, tests), in ms. */
  private record(modules: ReadonlyArray<TestModule>): void {
    const files = Object.fromEntries(
      modules
        .map((m) => {
          const d = m.diagnostic();
          return [fileKey(this.root, m.moduleId), Math.round(d.prepareDuration + d.environmentSetupDuration + d.collectDuration + d.duration)] as const;
        })
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    writeFileSync(DURATIONS_FILE, durationsText(files, new Date()));
    console.log(`recorded the durations of ${modules.length} files in tests/support/file-durations.json`);
  }
}
