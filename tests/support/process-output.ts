/**
 * Everything this process writes while a secret test runs (stdout, stderr and every console level), for
 * the search of a typed secret in the host's logs (docs/rules.md#r-secret-03). One copy, so a new way of
 * writing is caught by every secret test at once.
 */
import { vi } from 'vitest';

export function captureProcessOutput(): { text(): string; restore(): void } {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args) => void capture(args.map(String).join(' '))),
    ),
  ];
  return {
    text: () => written.join(''),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
