/**
 * The recorded runner session (Settings on an iPhone 17 simulator, iOS 26.5) that unit tests read: the
 * recording Parallax ships in resources/recordings/settings-tap-general (its README says where it came from).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ViewHierarchySchema, type UiNode, type ViewHierarchy } from '@shared/protocol/runner';

export const GOLDEN_DIR = join(__dirname, '..', '..', 'resources', 'recordings', 'settings-tap-general');

/** The hierarchy a recorded reply carries (default: the Settings screen of 0008). */
export function goldenHierarchy(file = '0008-request_hierarchy_if_stale.json'): ViewHierarchy {
  const recorded = JSON.parse(readFileSync(join(GOLDEN_DIR, file), 'utf8')) as { response?: { data: unknown }; push?: { data: unknown } };
  return ViewHierarchySchema.parse((recorded.response ?? recorded.push)?.data);
}

export function goldenRoot(file?: string): UiNode {
  const root = goldenHierarchy(file).hierarchy;
  if (!root) throw new Error(`${file ?? 'golden'} has no tree`);
  return root;
}
