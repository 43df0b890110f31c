/**
 * Every tool of the iOS and Tauri tool lists, each reply form its server gives, through the client:
 * the arguments it names, and the answer decoded and classified as the server meant
 * (appreveal-tool-cases.ts; `npm run bench -- appreveal` prints the counts).
 */
import { describe, expect, it } from 'vitest';
import { IOS_TOOLS, runToolList, TAURI_TOOLS, toolsClassified } from '../support/appreveal-tool-cases';

describe.each([IOS_TOOLS, TAURI_TOOLS])('the $platform tool list', (list) => {
  it(`R-AR-07, R-AR-19: every ${list.platform} tool is called with its own argument names and read as the server meant`, async () => {
    const outcomes = await runToolList(list);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(toolsClassified(list, outcomes)).toMatchObject({ failing: [], classified: Object.keys(list.tools).length });
  });
});
