/**
 * The demo app's variants: the same app after a designer changed a screen, so a replay of a recording
 * made before the change meets it (docs/rules.md#r-rpl-07). Switched at run time through the admin
 * endpoint (`POST /admin/variants`) or at start (`--variant NAME`); the app page follows (app.js
 * `setVariants`, the checkout page's `message` handler).
 */
export const VARIANTS = {
  'moved-button': {
    help: 'a button moved: Sign In below the passkey button, the feed’s like buttons, Post reply, Flag, Place order above Pay later',
  },
  'renamed-label': {
    help: 'a label renamed: Sign In → Log In, Like Post N → Favourite Post N, Like → Heart, Home → Start, Place order → Buy now',
  },
  'removed-row': { help: 'a row removed: the passkey button, the feed’s Post 12, Notify me, the Island button, Pay later' },
} as const;

export type VariantName = keyof typeof VARIANTS;
export const VARIANT_NAMES = Object.keys(VARIANTS) as VariantName[];

/** The variants named in `list`, in the vocabulary's order; throws naming the first unknown one. */
export function parseVariants(list: readonly string[]): VariantName[] {
  for (const name of list) {
    if (!Object.hasOwn(VARIANTS, name)) throw new Error(`unknown variant "${name}" (known: ${VARIANT_NAMES.join(', ')})`);
  }
  return VARIANT_NAMES.filter((name) => list.includes(name));
}
