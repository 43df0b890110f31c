// Run through tsx by tests/integration/tsx-runtime.test.ts: prints what an XPath query finds, or the error.
import { parseXPath } from '@shared/selectors/xpath';

try {
  const query = parseXPath('//XCUIElementTypeButton[@name="Sign In"]');
  console.log(`parsed ${typeof query}`);
} catch (error) {
  console.log(`error ${(error as Error).message}`);
}
