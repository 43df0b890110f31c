/**
 * A vitest reporter beside the default one: at the end of a run, the ten test files that took longest
 * (tests and hooks, then what importing them and setting up their environment cost), and those costs
 * summed over every file, so CI's log says where the unit and integration stage spent its time
 * (issue 29.4: the suite under 20 minutes on 2 cores). Prints only; asserts nothing.
 */
import type { Reporter, TestModule } from 'vitest/node';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length < 2) return;
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
}
