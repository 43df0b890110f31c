/** Every file below `root`, at any depth, sorted: what a test searches for a secret or lists as written. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out.sort();
}
