/**
 * The figures of "one AppReveal client for every platform" (`npm run bench -- appreveal`):
 *   - per recorded exchange of AppReveal's own Rust server (tests/fixtures/appreveal-tauri): decoded and
 *     classified by the client as the server meant, and answered in the recorded shape by the demo's
 *     Tauri flavour;
 *   - per tool of the iOS and Tauri tool lists: called with its own argument names and every reply form
 *     read as the server meant;
 *   - per demo flavour: the tools of AppReveal's own CLI commands the demo serves, and which commands work.
 * The cases are the contract tests' (tests/support/appreveal-*-cases.ts, appreveal-cli.ts).
 */
import { startDemoDevice } from '@demo/index';
import { compareSetWithDemo, FIXTURE_SETS, replaySetAgainstClient } from '../tests/support/appreveal-contract-cases';
import { IOS_TOOLS, runToolList, TAURI_TOOLS, toolsClassified } from '../tests/support/appreveal-tool-cases';
import { AppRevealCli, CLI_TOOLS, cliToolsServed } from '../tests/support/appreveal-cli';

const line = (text: string) => console.log(text);

let exchanges = 0;
let classified = 0;
let shaped = 0;
for (const set of FIXTURE_SETS) {
  const outcomes = await replaySetAgainstClient(set);
  const demo = await compareSetWithDemo(set);
  exchanges += outcomes.length;
  classified += outcomes.filter((o) => o.ok).length;
  shaped += demo.filter((d) => d.ok).length;
  for (const outcome of outcomes) {
    const answer = demo.find((d) => d.exchange === outcome.exchange);
    line(
      `${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.exchange.padEnd(44)} client: ${outcome.meant}${outcome.ok ? '' : ` (got ${outcome.got})`}; demo: ${answer?.ok ? 'same shape' : `differs: ${answer?.differences.join('; ')}`}`,
    );
  }
}
line(`recorded exchanges decoded and classified as the server meant: ${classified} of ${exchanges}`);
line(`recorded requests the demo's Tauri flavour answers in the recorded shape: ${shaped} of ${exchanges}`);

for (const list of [IOS_TOOLS, TAURI_TOOLS]) {
  const outcomes = await runToolList(list);
  const counts = toolsClassified(list, outcomes);
  for (const failed of outcomes.filter((o) => !o.ok)) line(`FAIL ${list.platform} ${failed.tool} (${failed.form}): ${failed.detail}`);
  line(
    `${list.platform} tool list: ${counts.classified} of ${counts.tools} tools called with their own argument names and read as the server meant (${outcomes.filter((o) => o.ok).length} of ${outcomes.length} reply forms)${counts.failing.length ? `; failing: ${counts.failing.join(', ')}` : ''}`,
  );
}

for (const flavor of ['ios', 'tauri'] as const) {
  const device = await startDemoDevice({ port: 0, screen: 'login', appRevealFlavor: flavor });
  try {
    const url = device.appRevealUrl ?? '';
    const { served, missing } = await cliToolsServed(url);
    const cli = new AppRevealCli(url);
    const works = async (name: string, run: () => Promise<unknown>): Promise<string> => {
      try {
        await run();
        return `${name} ok`;
      } catch (error) {
        return `${name} fails (${error instanceof Error ? error.message.slice(0, 80) : String(error)})`;
      }
    };
    const commands = [
      await works('inspect', () => cli.inspect(true)),
      await works('snapshot', async () => {
        const snapshot = await cli.snapshot();
        if (snapshot.elementCount === 0) throw new Error('no elements');
      }),
      await works('find', async () => {
        if ((await cli.find('login.submit')).length === 0) throw new Error('no match');
      }),
      await works('tap', () => cli.tap('tab.login', 'id')),
      await works('type', () => cli.type('x', 'login.username')),
    ];
    line(
      `demo ${flavor}: serves ${served.length} of ${CLI_TOOLS.length} tools of AppReveal's CLI commands${missing.length ? ` (not ${missing.join(', ')})` : ''}; ${commands.join(', ')}`,
    );
  } finally {
    await device.close();
  }
}
