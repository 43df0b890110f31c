/**
 * Text from a device or a trace, shown so it cannot lie (docs/rules.md#r-show-01): the bidirectional
 * controls (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates, U+200E/U+200F/U+061C marks)
 * reorder what follows them, so a label "\u202Elive" reads "evil". They are shown as their code point,
 * `<U+202E>`, as Xcode's view debugger shows them, in the tree, the attributes, the timeline and the
 * exports' comments. The text a selector matches is left as it is: only what a person reads changes.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Whether `text` holds a control that reorders what is shown. */
export function hasBidiControls(text: string): boolean {
  BIDI_CONTROLS.lastIndex = 0;
  return BIDI_CONTROLS.test(text);
}

/** `text` with each bidirectional control written out as `<U+XXXX>`. */
export function visibleText(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}
