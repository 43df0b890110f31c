/**
 * `npm run bench -- trace-open`: crafted traces dropped on the web host (issue 26; docs/rules.md#r-mem-02,
 * #r-mem-03), each uploaded twice to a real `parallax serve` in its own process, as a page drops one:
 *
 * - dense: 3.8M one-line events (about 220 MiB inflated, under the byte limit), the trace that ended the host
 *   out of memory; now refused by its event count before one event is parsed;
 * - at the limit: TRACE_EVENT_LIMITS.events observation events, the most a trace may hold; opened whole.
 * - at the step limit: TRACE_EVENT_LIMITS.steps taps (the demo's recorded step, each with its target and
 *   result), whose trace view listing (`trace.open`'s answer) is the largest a trace may have, about 120 MiB
 *   of JSON; it comes from the worker and goes to the page in parts (docs/rules.md#r-mem-07).
 *
 * Meanwhile another page's calls (`app.info` over the API socket, one every 20 ms) are timed. An opened
 * trace is then replayed by the host (`trace.replay`, read in the trace worker, R-MEM-04) onto a device
 * the host does not have, the calls still timed. Printed: the host's peak RSS (VmHWM, the kernel's
 * high-water mark) against 1.5 GiB, and the slowest other call against 500 ms, each as a ratio to its
 * limit. Then the CLI as a user runs it, each in a process of its own: `parallax open --json FILE` and
 * `parallax replay FILE` (onto a port nothing listens on), their peak RSS against 1.5 GiB.
 * `TRACE_OPEN_CASES=dense` (or `at-limit`, `steps`) runs one; `TRACE_OPEN_CLI=0` leaves out the CLI's runs.
 * The trace worker is a process of its own (docs/rules.md#r-mem-10), whose peak RSS is printed beside the
 * host's; `PARALLAX_TRACE_WORKER=thread` runs it as a thread of the host's, the form before, to compare.
 */
import { spawn } from 'node:child_process';
import { open, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { TRACE_UPLOAD_PATH } from '@shared/api/api';
import { encodeTraceManifest } from '@shared/trace/encode';
import { TRACE_EVENT_LIMITS } from '@main/trace/events-stream';
import { writeZip } from '@main/trace/zip';
import { percentile, serveInChild } from './web-host-process';

const RSS_LIMIT = 1.5 * 1024 ** 3;
const LATENCY_LIMIT_MS = 500;
const PING_EVERY_MS = 20;
/** The id of the replay call among the pings. */
const REPLAY_CALL = 1_000_000_000;
const MiB = 1024 ** 2;
/** `TRACE_OPEN_CASES=at-limit` measures one of them. */
const CASES = (process.env.TRACE_OPEN_CASES ?? 'dense,at-limit,steps').split(',');

const manifest = encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } });
const hex = (i: number) => i.toString(16).padStart(64, '0');

/** A trace file of `count` events made by `line`, built in slices so the bench holds one copy. */
async function craft(path: string, count: number, line: (i: number) => string): Promise<{ bytes: number; inflated: number }> {
  const parts: Buffer[] = [];
  let inflated = 0;
  const slice = 100_000;
  for (let from = 0; from < count; from += slice) {
    let text = '';
    for (let i = from; i < Math.min(count, from + slice); i++) text += line(i);
    const part = Buffer.from(text);
    inflated += part.length;
    parts.push(part);
  }
  const handle = await open(path, 'w');
  try {
    const bytes = await writeZip(handle, [
      { name: 'manifest.json', data: Buffer.from(manifest), compress: true },
      { name: 'events.jsonl', data: Buffer.concat(parts), compress: true },
    ]);
    return { bytes, inflated };
  } finally {
    await handle.close();
  }
}

async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * What the upload answered, read as it streams: the listing of a trace at the step limit is 120 MiB of
 * JSON, and one JSON.parse of it on this thread held the pings' answers unread (a lag of 22.7 s that was
 * the bench's own, not the host's). The steps are counted by their `callId` key, a chunk at a time.
 */
async function uploadAnswer(reply: Response): Promise<{ ok: true; path: string; steps: number } | { ok: false; message: string }> {
  let head = '';
  let steps = 0;
  let tail = '';
  const key = '{"callId":';
  const reader = reply.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = tail + Buffer.from(value).toString();
    if (head.length < 65_536) head += text.slice(0, 65_536 - head.length);
    for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + key.length)) steps++;
    // Shorter than the key: one split across chunks is found whole in the next, none is counted twice.
    tail = text.slice(-(key.length - 1));
  }
  if (head.startsWith('{"ok":false'))
    return { ok: false, message: (JSON.parse(/"message":("(?:[^"\\]|\\.)*")/.exec(head)?.[1] ?? '""') as string) || head.slice(0, 200) };
  return { ok: true, path: JSON.parse(/"path":("(?:[^"\\]|\\.)*")/.exec(head)![1]!) as string, steps };
}

/**
 * The host's main thread's schedstat (proc(5)): ns on a CPU, ns waiting on a run queue for one. A call's
 * lag is the host's own work when `run` grew by it, and the machine's when `wait` did: the thread was
 * ready and no CPU was given to it.
 */
async function schedstat(pid: number): Promise<{ run: number; wait: number } | undefined> {
  try {
    const [run, wait] = (await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')).split(' ').map(Number);
    return { run: run! / 1e6, wait: wait! / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * The states (proc(5): R running or runnable, S asleep, D in the kernel) of the process's threads at
 * nice 19, the trace worker's thread (docs/rules.md#r-mem-06), joined; '' when there is none.
 */
async function nicedStates(pid: number): Promise<string> {
  const states: string[] = [];
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[16] === '19') states.push(fields[0]!);
  }
  return states.join('');
}

/** The host's child processes (proc(5): each thread's `children`): the trace worker's, in its own process (docs/rules.md#r-mem-10). */
async function childPids(pid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const text = await readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '');
    for (const child of text.split(' ').filter(Boolean)) pids.push(Number(child));
  }
  return pids;
}

/** Where the host runs its trace worker (off-thread.ts' traceWorkerForm): the bench runs it either way for the comparison. */
const FORM = process.env.PARALLAX_TRACE_WORKER?.trim() === 'thread' ? 'thread' : 'process';

async function measure(name: string, file: string): Promise<void> {
  const { url, child } = await serveInChild([]);
  try {
    const origin = new URL(url).origin;
    const token = new URL(url).searchParams.get('token')!;
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/api?token=${token}`, { origin });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const waiting = new Map<
      number,
      {
        sent: number;
        phase: string;
        into: number;
        sched?: { run: number; wait: number } | undefined;
        mine?: { run: number; wait: number } | undefined;
        slept?: number;
      }
    >();
    const latencies: number[] = [];
    /** The slowest call: what the host was doing when it was sent, and where its thread's time went meanwhile. */
    let slowest = { ms: 0, phase: '', sched: '' };
    /** The host thread's schedstat, read every ping: a call's share is the change from its sending to its answer. */
    let sched: { run: number; wait: number } | undefined;
    /** This bench's own thread: a call timed late because the bench itself waited for a CPU is not the host's lag. */
    let mine: { run: number; wait: number } | undefined;
    /** Where the host's thread slept at each sample (its wchan): idle in epoll, or blocked on a lock (a futex). */
    const sleptIn: string[] = [];
    /** Each trace worker process's peak RSS (VmHWM), by pid. */
    const workerPeaks = new Map<number, number>();
    const schedPoll = setInterval(() => {
      void schedstat(child.pid!).then((s) => (sched = s));
      // Beside it, the state of the trace worker's thread (the one at nice 19): a host thread blocked on a
      // lock (futex) while that thread is runnable but given no CPU is a lock the niced thread holds.
      void Promise.all([readFile(`/proc/${child.pid}/task/${child.pid}/wchan`, 'utf8'), nicedStates(child.pid!)]).then(
        ([w, niced]) => void sleptIn.push(`${w.trim() || 'running'}${niced ? ` (niced ${niced})` : ''}`),
        () => undefined,
      );
      void schedstat(process.pid).then((s) => (mine = s));
      // The trace worker's own peak, when it is a process of its own (each one the host started: it restarts after a refusal).
      void childPids(child.pid!).then((pids) =>
        pids.forEach(
          (pid) =>
            void peakRss(pid).then(
              (rss) => workerPeaks.set(pid, Math.max(workerPeaks.get(pid) ?? 0, rss)),
              () => undefined,
            ),
        ),
      );
    }, PING_EVERY_MS / 2);
    let phase = 'upload 1';
    let phaseStarted = performance.now();
    const took = (
      ms: number,
      call: {
        phase: string;
        into: number;
        sched?: { run: number; wait: number } | undefined;
        mine?: { run: number; wait: number } | undefined;
        slept?: number;
      },
    ) => {
      latencies.push(ms);
      if (ms <= slowest.ms) return;
      const now = sched;
      const share =
        call.sched && now
          ? `; meanwhile the host's thread ran ~${(now.run - call.sched.run).toFixed(0)} ms and waited ~${(now.wait - call.sched.wait).toFixed(0)} ms for a CPU${
              call.mine && mine ? `, the bench's ~${(mine.wait - call.mine.wait).toFixed(0)} ms` : ''
            }`
          : '';
      const where = new Map<string, number>();
      for (const w of sleptIn.slice(call.slept ?? sleptIn.length)) where.set(w, (where.get(w) ?? 0) + 1);
      // Fewer samples than the call's time holds: the bench's own loop was late too, and the lag is partly its own.
      const samples = sleptIn.length - (call.slept ?? sleptIn.length);
      const due = Math.round(ms / (PING_EVERY_MS / 2));
      const slept = where.size
        ? `; its thread, sampled (${samples} of ~${due}): ${[...where].map(([w, n]) => `${w} ×${n}`).join(', ')}`
        : `; its thread sampled 0 times of ~${due}: the bench's own loop was held meanwhile`;
      slowest = { ms, phase: `${call.phase}, sent ${(call.into / 1000).toFixed(1)} s into it`, sched: share + slept };
    };
    ws.on('message', (data) => {
      const { id } = JSON.parse(data.toString()) as { id?: number };
      const call = id === undefined ? undefined : waiting.get(id);
      if (call === undefined) return;
      took(performance.now() - call.sent, call);
      waiting.delete(id!);
    });
    let id = 0;
    const ping = setInterval(() => {
      const now = performance.now();
      waiting.set(++id, { sent: now, phase, into: now - phaseStarted, sched, mine, slept: sleptIn.length });
      ws.send(JSON.stringify({ id, method: 'app.info', params: {} }));
    }, PING_EVERY_MS);
    const body = await readFile(file);
    const outcomes: string[] = [];
    let opened: string | undefined;
    const started = performance.now();
    for (let upload = 0; upload < 2; upload++) {
      phase = `upload ${upload + 1}`;
      phaseStarted = performance.now();
      const reply = await fetch(`${origin}${TRACE_UPLOAD_PATH}?name=${name}.parallax-trace&token=${token}`, { method: 'POST', body, headers: { origin } });
      const json = await uploadAnswer(reply);
      outcomes.push(json.ok ? `opened (${json.steps.toLocaleString('en-US')} steps listed)` : `refused: ${json.message}`);
      if (json.ok) opened = json.path;
    }
    const openMs = performance.now() - started;
    let replayed = '';
    if (opened) {
      phase = 'replay';
      phaseStarted = performance.now();
      const replayStarted = performance.now();
      const reply = await new Promise<{ ok: boolean; error?: { message: string } }>((resolve) => {
        const onReply = (data: WebSocket.RawData) => {
          const message = JSON.parse(data.toString()) as { id?: number; ok: boolean; error?: { message: string } };
          if (message.id !== REPLAY_CALL) return;
          ws.off('message', onReply);
          resolve(message);
        };
        ws.on('message', onReply);
        ws.send(JSON.stringify({ id: REPLAY_CALL, method: 'trace.replay', params: { path: opened, deviceId: 'no-such-device', stopOnDivergence: false } }));
      });
      replayed = `; replay read it in ${((performance.now() - replayStarted) / 1000).toFixed(1)} s, then ${reply.ok ? 'ran' : `refused: ${reply.error!.message}`}`;
    }
    clearInterval(ping);
    clearInterval(schedPoll);
    // Calls still unanswered count as waiting until now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const call of waiting.values()) took(performance.now() - call.sent, call);
    const rss = await peakRss(child.pid!);
    const worst = slowest.ms;
    ws.close();
    const workerPeak = Math.max(0, ...workerPeaks.values());
    console.log(
      `${name} (trace worker: ${FORM}): two uploads in ${(openMs / 1000).toFixed(1)} s; ${outcomes[0]}${outcomes[1] === outcomes[0] ? ' (both)' : `; then ${outcomes[1]}`}${replayed}`,
    );
    console.log(
      `  host peak RSS ${(rss / MiB).toFixed(0)} MiB / limit ${RSS_LIMIT / MiB} MiB = ${(rss / RSS_LIMIT).toFixed(2)}` +
        (FORM === 'process' ? `   trace worker process peak RSS ${(workerPeak / MiB).toFixed(0)} MiB (${workerPeaks.size} started)` : '') +
        `   other calls (${latencies.length}): p50 ${percentile(latencies, 50).toFixed(0)} ms, max ${worst.toFixed(0)} ms (during ${slowest.phase}${slowest.sched}) / limit ${LATENCY_LIMIT_MS} ms = ${(worst / LATENCY_LIMIT_MS).toFixed(2)}`,
    );
  } finally {
    child.kill();
  }
  // TRACE_OPEN_CLI=0: the host's figures alone.
  if (process.env.TRACE_OPEN_CLI === '0') return;
  for (const args of [
    ['open', '--json', file],
    ['replay', file, '--device', 'ws://127.0.0.1:9/ws', '--timeout', '2000'],
  ]) {
    const run = await cliPeak(args);
    console.log(
      `  parallax ${args[0]}${args[0] === 'open' ? ' --json' : ''}: exit ${run.code} in ${(run.ms / 1000).toFixed(1)} s (${run.said}; ${(run.stdoutBytes / MiB).toFixed(0)} MiB on stdout${run.tail ? `, ending ${JSON.stringify(run.tail)}` : ''}); peak RSS ${(run.peak / MiB).toFixed(0)} MiB / limit ${RSS_LIMIT / MiB} MiB = ${(run.peak / RSS_LIMIT).toFixed(2)}`,
    );
  }
}

/**
 * `parallax ARGS` in a process of its own: its exit code, time, first line on stderr, how much it printed
 * (and how that ended: `parallax open --json` a whole document, "}"), and peak RSS (VmHWM, polled until it ends).
 */
async function cliPeak(args: string[]): Promise<{ code: number | null; ms: number; said: string; peak: number; stdoutBytes: number; tail: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'bin', 'parallax.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdoutBytes = 0;
  let tail = '';
  child.stdout!.on('data', (d: Buffer) => {
    stdoutBytes += d.length;
    tail = (tail + d.toString()).slice(-8);
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(0, 4096)));
  let peak = 0;
  const poll = setInterval(
    () =>
      void peakRss(child.pid!).then(
        (rss) => (peak = Math.max(peak, rss)),
        () => undefined,
      ),
    20,
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(poll);
  const said = (stderr.split('\n')[0] ?? '').slice(0, 160) || 'nothing on stderr';
  return { code, ms: performance.now() - started, said, peak, stdoutBytes, tail: tail.trim().slice(-1) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'parallax-trace-open-bench-'));
  try {
    if (CASES.includes('dense')) {
      const dense = join(dir, 'dense.parallax-trace');
      const d = await craft(dense, 3_800_000, (i) => `{"type":"note","callId":"n${i}","seq":${i},"time":1,"text":""}\n`);
      console.log(`dense: ${(d.bytes / MiB).toFixed(0)} MiB file, ${(d.inflated / MiB).toFixed(0)} MiB of events inflated, 3,800,000 events`);
      await measure('dense', dense);
    }
    if (CASES.includes('steps')) {
      const steps = join(dir, 'steps.parallax-trace');
      const fixture = (await readFile(join(import.meta.dirname, '..', 'tests', 'fixtures', 'traces', 'demo-qa', 'events.jsonl'), 'utf8'))
        .split('\n')
        .filter((line) => line.includes('"callId":"call-1"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const [before, after] = fixture as [Record<string, unknown>, Record<string, unknown>];
      const actions = TRACE_EVENT_LIMITS.steps;
      const s = await craft(steps, 2 * actions, (i) => {
        const call = { callId: `call-${i >> 1}`, seq: i, time: 1_700_000_000_000 + i * 33 };
        return `${JSON.stringify(i % 2 === 0 ? { ...before, ...call, action: { kind: 'tap' } } : { ...after, ...call })}\n`;
      });
      console.log(
        `at the step limit: ${(s.bytes / MiB).toFixed(0)} MiB file, ${(s.inflated / MiB).toFixed(0)} MiB of events inflated, ${actions.toLocaleString('en-US')} taps`,
      );
      await measure('steps', steps);
    }
    if (!CASES.includes('at-limit')) return;

    const full = join(dir, 'at-limit.parallax-trace');
    const n = TRACE_EVENT_LIMITS.events;
    const f = await craft(
      full,
      n,
      (i) =>
        `{"type":"observation","callId":"observe-${i}","seq":${i},"time":${1_700_000_000_000 + i * 33},"observationRef":"sha256:${hex(i)}","screenshotRef":"sha256:${hex(i + n)}"}\n`,
    );
    console.log(
      `at the limit: ${(f.bytes / MiB).toFixed(0)} MiB file, ${(f.inflated / MiB).toFixed(0)} MiB of events inflated, ${n.toLocaleString('en-US')} observation events`,
    );
    await measure('at-limit', full);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
