/**
 * The source roots' import aliases, for the bundler and the test runner (tsconfig.base.json's `paths`
 * says the same to TypeScript, tsx and Playwright). Imports across folders use these, never `../`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export const SOURCE_ALIASES = {
  '@shared': resolve(root, 'src-shared'),
  '@main': resolve(root, 'src-main'),
  '@demo': resolve(root, 'src-demo'),
  '@renderer': resolve(root, 'src-renderer/src'),
};
