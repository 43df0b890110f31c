/**
 * A screen of hard labels for the hand-off checks (docs/rules.md#r-hand-01): case twins, regex
 * characters, line feeds, nested duplicates, leading dashes, `${…}`, twins told apart only by their parent. Written as the real runner writes a
 * tree (label in `text`, identifier in `resource-id`, a text field's value in `value`, placeholder in
 * `hint-text`; AutoMobile CtrlProxy `buildElementInfoFromSnapshot`).
 */
import type { UiNode } from '@shared/protocol/runner';

let y = 100;
function node(className: string, fields: Record<string, string>, children: UiNode[] = [], height = 40): UiNode {
  const top = y;
  y += height + 4;
  return { className, ...fields, bounds: { left: 16, top, right: 386, bottom: top + height }, ...(children.length ? { node: children } : {}) } as UiNode;
}

export function hardLabelsRoot(): UiNode {
  y = 100;
  return {
    className: 'XCUIApplication',
    text: 'Hard labels',
    bounds: { left: 0, top: 0, right: 402, bottom: 874 },
    node: [
      node('UILabel', { text: 'Sign In' }),
      node('UIButton', { text: 'SIGN IN', 'resource-id': 'signin.button' }),
      node('UIButton', { text: 'Save', 'resource-id': 'save' }),
      node('UIButton', { text: 'Save changes', 'resource-id': 'SAVE' }),
      node('UILabel', { text: 'Price (USD) $5.00?' }),
      node('UILabel', { text: 'a+b [x] {y} ^z|w' }),
      node('UILabel', { text: 'Hello\nWorld' }),
      node('UILabel', { text: 'Hello World' }),
      node('UILabel', { text: 'Line one\nline two' }),
      node('UICollectionViewCell', { text: 'Post 12', 'resource-id': 'cell.12' }, [node('UILabel', { text: 'Post 12' })], 60),
      node('UICollectionViewCell', { text: 'Post 13' }, [node('UIView', {}, [node('UILabel', { text: 'Post 13' })])], 60),
      node('UIButton', { text: '-5% off', 'resource-id': '-discount' }),
      node('UIButton', { text: '--help' }),
      node('UILabel', { text: 'price ${total}' }),
      node('UITextField', { text: 'Email', 'hint-text': 'you@example.com', 'resource-id': 'login/email' }),
      node('UITextField', { 'hint-text': 'Search posts' }),
      // Two "OK" side by side, written right one first: Maestro's index counts from the left.
      { className: 'UIButton', text: 'OK', bounds: { left: 200, top: 800, right: 300, bottom: 840 } } as UiNode,
      { className: 'UIButton', text: 'OK', bounds: { left: 16, top: 800, right: 116, bottom: 840 } } as UiNode,
      node('UIButton', { text: 'ok', 'resource-id': 'ok.lower' }),
      node('UIButton', { text: 'Straße', 'resource-id': 'de.street' }),
      // Secure fields whose identifiers are Swift keywords or the XCUITest export's own names.
      node('UISecureTextField', { text: 'default', 'resource-id': 'default', password: 'true' }),
      node('UISecureTextField', { text: 'in', 'resource-id': 'in', password: 'true' }),
      node('UISecureTextField', { text: 'app', 'resource-id': 'app', password: 'true' }),
      // Threads with Reply buttons that have no id: a Reply is told apart by the thread it is in (Maestro's
      // childOf), known by its id or by its label; a thread holding two Replies tells neither apart.
      node('UICollectionViewCell', { 'resource-id': 'thread.1' }, [node('UIButton', { text: 'Reply' })], 60),
      node('UICollectionViewCell', { 'resource-id': 'thread.2' }, [node('UIButton', { text: 'Reply' })], 60),
      node('UICollectionViewCell', { text: 'Thread three' }, [node('UIButton', { text: 'Reply' })], 60),
      node('UICollectionViewCell', { text: 'Thread four' }, [node('UIButton', { text: 'Reply' }), node('UIButton', { text: 'Reply' })], 60),
    ],
  } as UiNode;
}
