/**
 * `npm run bench -- lifecycle`: the issue-27 figures of replays from a known state and scroll searches
 * (docs/rules.md#r-life-05, #r-look-07), on the demo device over its real ports.
 *
 * 1. Relaunch first: each sequence of tests/support/replay-cases.ts recorded "from launch" (a cold
 *    relaunch, the tab to its screen, its steps), and the ones recorded on Sign In (the app's first
 *    screen) without a launch; each replayed with "relaunch first" from another screen. A replay
 *    succeeds when the relaunch succeeded and every step matched. Limit: N of N.
 * 2. Scroll searches over the whole Feed (60 posts, opening at row 8), its list gliding on after each
 *    swipe as a fling does (the fault that made searches fail as stale): `scrollTo {lookFor: 'Post K'}`
 *    for posts ever further down, each found, and one past the list's end that must end as
 *    target_not_found; then back up to Post 1 and one before the top, target_not_found too. The demo's
 *    one list screen is the Feed (resources/demo-app: feed.list is its only scrollable list). Limit:
 *    every search right.
 *
 * LIFECYCLE_RUNS=3 repeats each scroll search; LIFECYCLE_CASES=login-A,feed-B narrows part 1 (a name no
 * case has, e.g. LIFECYCLE_CASES=none, skips it).
 */
import { openTraceFile } from '@main/trace/open';
import { replayTrace } from '@main/trace/replay';
import { admin } from '../tests/support/demo-admin';
import { recordCase, resetApp, SECRET_VALUE, type ReplayCase } from '../tests/support/replay-cases';
import { casesNamedIn, startReplayBenchEnv } from './replay-env';

const runs = Math.max(1, Number(process.env['LIFECYCLE_RUNS'] ?? '1') || 1);
const cases = casesNamedIn('LIFECYCLE_CASES');
const env = await startReplayBenchEnv('lifecycle');
const { demo, manager, deviceId } = env;
const ratio = (n: number, limit: number) => (limit > 0 ? (n / limit).toFixed(2) : 'n/a');

// --- 1. Relaunch first -------------------------------------------------------------------------------
/** Another screen than the one the recording starts on: the replay must put the app back itself. */
const elsewhere = (c: ReplayCase) => (c.screen === 'checkout' ? 'feed' : 'checkout');
const replays: Array<{ name: string; ok: boolean; line: string }> = [];
const runs1: Array<{ c: ReplayCase; fromLaunch: boolean }> = [
  ...cases.map((c) => ({ c, fromLaunch: true })),
  ...cases.filter((c) => c.screen === 'login').map((c) => ({ c, fromLaunch: false })),
];
for (const { c, fromLaunch } of runs1) {
  const name = `${c.name}${fromLaunch ? ' (from launch)' : ' (on Sign In)'}`;
  let path: string;
  try {
    path = await recordCase(env, c, [], { fromLaunch });
  } catch (error) {
    // A recording that could not be made is a failed row of its own, never a crash of the whole table
    // (as in replay.bench.ts): on the loaded machine a step after the relaunch has found the app elsewhere.
    const line = `could not record: ${error instanceof Error ? error.message : String(error)}`;
    replays.push({ name, ok: false, line });
    console.log(`  FAIL ${name.padEnd(26)} ${line}`);
    if (env.recording.status().recording) await env.recording.stop().catch(() => undefined);
    continue;
  }
  await resetApp(demo.adminUrl, elsewhere(c), []);
  const report = await replayTrace(await openTraceFile(path), manager.connectionOf(deviceId), {
    stopOnDivergence: false,
    relaunchFirst: {},
    variables: new Map([['LOGIN_PASSWORD', SECRET_VALUE]]),
  });
  const ok = report.relaunchedFirst?.success === true && report.matched === report.total && report.steps.length === report.total;
  const first = report.steps.find((s) => s.verdict !== 'matched');
  const line = `${report.matched} of ${report.total} matched from ${elsewhere(c)}${first ? `; ${first.verdict} at ${first.number}: ${first.differences[0] ?? ''}` : ''}`;
  replays.push({ name, ok, line });
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(26)} ${line}`);
}
const succeeded = replays.filter((r) => r.ok).length;
console.log(
  `\nrelaunch-first replays started on another screen, every step matched: ${succeeded} of ${replays.length} (limit: ${replays.length}; ratio ${ratio(succeeded, replays.length)})`,
);

// --- 2. Scroll searches ------------------------------------------------------------------------------
const GLIDE = 'scroll-glide=1500';
const FEED_LENGTH = 60;
const FEED_INITIAL_ROW = 8;
const targets = [15, 25, 35, 45, 55, 60];
const swipesSent = async () => (await admin<{ requests: Record<string, number> }>(demo.adminUrl, '/stats')).requests['request_swipe'] ?? 0;
const connection = manager.connectionOf(deviceId);
const searches: Array<{ post: number; right: boolean }> = [];
console.log(`\nscroll searches over the Feed (${FEED_LENGTH} posts, gliding 1.5 s after each swipe), ${runs} run(s) each:`);
// Down to the list's end (the finger up), then back up to its top (the finger down: Post 1 and one before it).
const searchesToRun: Array<{ post: number; finger: 'up' | 'down' }> = [...targets, FEED_LENGTH + 1].map((post) => ({ post, finger: 'up' }));
searchesToRun.push({ post: 4, finger: 'down' }, { post: 1, finger: 'down' }, { post: 0, finger: 'down' });
for (const { post, finger } of searchesToRun) {
  const beyond = post > FEED_LENGTH || post < 1;
  let right = 0;
  const swipes: number[] = [];
  const outcomes: string[] = [];
  for (let i = 0; i < runs; i++) {
    await admin(demo.adminUrl, '/reset', { screen: 'feed', faults: [GLIDE], variants: [] });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const { result } = await connection.act({ action: 'scrollTo', lookFor: { text: `Post ${post}` }, direction: finger, maxSwipes: 40 });
    swipes.push(await swipesSent());
    const ok = beyond ? !result.success && result.failureReason === 'target_not_found' : result.success;
    if (ok) right++;
    outcomes.push(result.success ? 'found' : (result.failureReason ?? 'failed'));
    searches.push({ post, right: ok });
  }
  const rows = finger === 'up' ? Math.max(0, post - FEED_INITIAL_ROW) : FEED_INITIAL_ROW + 1 - post;
  const way = finger === 'up' ? 'down' : 'up';
  const what = beyond ? `Post ${post} (past the ${finger === 'up' ? 'end' : 'top'}), target_not_found` : `Post ${post} (${rows} rows ${way}), found`;
  console.log(`  ${what.padEnd(46)} ${right} of ${runs} (ratio ${ratio(right, runs)}); swipes ${swipes.join(', ')}; ${[...new Set(outcomes)].join(', ')}`);
}
const rightSearches = searches.filter((s) => s.right).length;
console.log(`scroll searches right: ${rightSearches} of ${searches.length} (limit: ${searches.length}; ratio ${ratio(rightSearches, searches.length)})`);

await env.close();
process.exitCode = succeeded === replays.length && rightSearches === searches.length ? 0 : 1;
