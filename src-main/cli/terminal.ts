/**
 * The terminal side of `parallax replay`'s secrets (docs/rules.md#r-trust-01): a prompt that does not
 * echo what is typed, and all of stdin for `--var-file -`. Kept apart so the commands take them as
 * functions and the tests give their own.
 */
import { MAX_VAR_FILE } from './replay-variables';

/** All of stdin, refused past `MAX_VAR_FILE` bytes (read one byte over, so the caller names the limit). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_VAR_FILE) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A line typed on the terminal with nothing echoed; Ctrl-C or Ctrl-D refuses. Only when stdin is a TTY. */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    process.stderr.write(question);
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new Error('no value given at the prompt'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** The prompt, when there is a terminal to ask on. */
export function terminalPrompt(): ((question: string) => Promise<string>) | undefined {
  return process.stdin.isTTY && typeof process.stdin.setRawMode === 'function' ? promptHidden : undefined;
}
