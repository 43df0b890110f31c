/**
 * What a Maestro flow must say for Maestro to do what was recorded (docs/rules.md#r-hand-02,
 * docs/selectors.md#s-maestro-rules): each rule here is one of Maestro's own, cited by file.
 */

// ---- `${…}` is JavaScript (Env.kt) -------------------------------------------------------------------

// maestro-orchestra-models/src/main/java/maestro/orchestra/util/Env.kt, `evaluateScripts` (l. 27–43):
// every string of a command first has `(?<!\\)\$\{(.*)}` replaced by the script's result (greedy, within
// one line: Java's `.` stops at \n, \r, U+0085, U+2028, U+2029), then `\\\$\{.*}` replaced by itself
// minus its first backslash: `\${x}` is the way to write a literal `${x}`, one per line.
const JAVA_LINE_BREAK = /(\r\n|[\n\r\u0085\u2028\u2029])/;
const SCRIPT = /(?<!\\)\$\{.*\}/;
const ESCAPED_SCRIPT = /\\\$\{.*\}/;

/** One line written so that evaluateScripts gives back exactly `line`. */
function scriptSafeLine(line: string): string {
  if (!SCRIPT.test(line) && !ESCAPED_SCRIPT.test(line)) return line;
  // After evaluation, the unescape pass removes one backslash: the one before the first `\${…}`.
  const first = line.search(ESCAPED_SCRIPT);
  const evaluated = first < 0 ? line : `${line.slice(0, first)}\\${line.slice(first)}`;
  const opens = line.split('${').length - 1;
  // One `${` and no backslash before it: `\${` is Maestro's own escape.
  if (opens === 1 && first < 0) return line.replace('${', '\\${');
  // Otherwise the line is one script that is a JavaScript string literal: the greedy `(.*)}` takes from
  // its `${` to its closing `}`, and the engine returns the literal's text. `$` is written `\u0024`
  // so no `${` is left inside it for a reader to stumble on.
  return `\${${JSON.stringify(evaluated).replaceAll('$', '\\u0024')}}`;
}

/**
 * `text` as a Maestro string that reads back as `text` after Maestro evaluates `${…}` in it (Env.kt);
 * unchanged when it holds no `${…}`.
 */
export function maestroLiteralText(text: string): string {
  return text
    .split(JAVA_LINE_BREAK)
    .map((part, i) => (i % 2 === 1 ? part : scriptSafeLine(part)))
    .join('');
}

// ---- What the iOS driver does with a key (IOSDriver.kt) ----------------------------------------------

/**
 * maestro-client/src/main/java/maestro/drivers/IOSDriver.kt, `pressKey`: BACKSPACE is the keyboard's
 * "delete" and ENTER its "return" (`keyCodeNameMap`), HOME and LOCK are hardware buttons
 * (`buttonNameMap`); every other key code is accepted by the reader and does nothing on iOS.
 */
export const MAESTRO_IOS_KEYS: Readonly<Record<string, string>> = {
  enter: 'Enter',
  return: 'Enter',
  backspace: 'Backspace',
  delete: 'Backspace',
  home: 'Home',
  lock: 'Lock',
};

/** Maestro's name for a key the iOS driver ignores, for the comment that says so. */
export const MAESTRO_IOS_IGNORED_KEYS: Readonly<Record<string, string>> = {
  tab: 'Tab',
  escape: 'Escape',
  volumeup: 'Volume Up',
  volumedown: 'Volume Down',
  back: 'Back',
  power: 'Power',
};

export function ignoredKeyNote(key: string): string {
  return `pressKey: ${key} is not exported: Maestro's iOS driver does nothing for it (IOSDriver.kt pressKey acts on Backspace, Enter, Home and Lock only)`;
}

/** IOSDriver.kt `longPress`: `iosDevice.longPress(point.x, point.y, 3000)`; `longPressOn` takes no duration. */
export const MAESTRO_IOS_LONG_PRESS_MS = 3000;

export function longPressNote(recordedMs: number): string {
  return `held for ${Math.round(recordedMs)} ms when recorded; Maestro's longPressOn takes no duration and holds ${MAESTRO_IOS_LONG_PRESS_MS} ms on iOS (IOSDriver.kt longPress)`;
}

// ---- A flow with no commands (YamlCommandReader.kt) ---------------------------------------------------

/**
 * YamlCommandReader.kt reads the part after `---` as a list of commands; an empty part is "No content
 * to map" (NoInputException) and the flow is refused. A flow whose recorded actions all failed still
 * needs one command: a wait that changes nothing.
 */
export const EMPTY_FLOW_COMMAND = '- waitForAnimationToEnd';
export const EMPTY_FLOW_NOTE = 'no recorded action is exported; Maestro refuses a flow without commands, so this one only waits for the screen to settle';

// ---- What Maestro makes of it at run time (the inverse, for checking exports) ----------------------

// Java's `.` stops at these line terminators (java.util.regex.Pattern, without DOTALL).
const DOT = '[^\\n\\r\\u0085\\u2028\\u2029]';
// maestro-orchestra-models/.../util/Env.kt evaluateScripts, l. 28 and l. 40: `(?<!\\)\$\{(.*)}` and `\\\$\{.*}`.
const SCRIPT_RUN = new RegExp(`(?<!\\\\)\\$\\{(${DOT}*)\\}`, 'g');
const ESCAPED_RUN = new RegExp(`\\\\\\$\\{${DOT}*\\}`, 'g');

/** Env.kt `evaluateScripts`: what Maestro makes of a flow's string at run time, with `run` as its JavaScript engine. */
export function evaluateScripts(text: string, run: (script: string) => string): string {
  const result = text.replace(SCRIPT_RUN, (_m, script: string) => (script.trim() !== '' ? run(script) : ''));
  return result.replace(ESCAPED_RUN, (m) => m.slice(m.indexOf('\\') + 1));
}
