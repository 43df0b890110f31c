/**
 * XCUIElement.ElementType, and the one mapping between it and what a runner node says about its kind
 * (docs/selectors.md#s-types): the runner's `className` and `role`, a bridge node's role (which the merge
 * puts in `className`) and a DOM element's role.
 *
 * The runner builds `className` and `role` from the element type (AutoMobile CtrlProxy,
 * `ios/control-proxy/Sources/CtrlProxyRewrite/ElementLocator.swift`, `mapElementType` and `mapRole`), so
 * the type is read back from them: className first, since every type the runner names has its own class,
 * then role for the types it folds into `UIView` (checkbox, radio, tab).
 */

/** Every XCUIElement.ElementType, with its raw value (the `elementType` of a predicate) and its query property. */
const TYPES = [
  ['Any', 0, 'descendants'],
  ['Other', 1, 'otherElements'],
  ['Application', 2, ''],
  ['Group', 3, 'groups'],
  ['Window', 4, 'windows'],
  ['Sheet', 5, 'sheets'],
  ['Drawer', 6, 'drawers'],
  ['Alert', 7, 'alerts'],
  ['Dialog', 8, 'dialogs'],
  ['Button', 9, 'buttons'],
  ['RadioButton', 10, 'radioButtons'],
  ['RadioGroup', 11, 'radioGroups'],
  ['CheckBox', 12, 'checkBoxes'],
  ['DisclosureTriangle', 13, 'disclosureTriangles'],
  ['PopUpButton', 14, 'popUpButtons'],
  ['ComboBox', 15, 'comboBoxes'],
  ['MenuButton', 16, 'menuButtons'],
  ['ToolbarButton', 17, 'toolbarButtons'],
  ['Popover', 18, 'popovers'],
  ['Keyboard', 19, 'keyboards'],
  ['Key', 20, 'keys'],
  ['NavigationBar', 21, 'navigationBars'],
  ['TabBar', 22, 'tabBars'],
  ['TabGroup', 23, 'tabGroups'],
  ['Toolbar', 24, 'toolbars'],
  ['StatusBar', 25, 'statusBars'],
  ['Table', 26, 'tables'],
  ['TableRow', 27, 'tableRows'],
  ['TableColumn', 28, 'tableColumns'],
  ['Outline', 29, 'outlines'],
  ['OutlineRow', 30, 'outlineRows'],
  ['Browser', 31, 'browsers'],
  ['CollectionView', 32, 'collectionViews'],
  ['Slider', 33, 'sliders'],
  ['PageIndicator', 34, 'pageIndicators'],
  ['ProgressIndicator', 35, 'progressIndicators'],
  ['ActivityIndicator', 36, 'activityIndicators'],
  ['SegmentedControl', 37, 'segmentedControls'],
  ['Picker', 38, 'pickers'],
  ['PickerWheel', 39, 'pickerWheels'],
  ['Switch', 40, 'switches'],
  ['Toggle', 41, 'toggles'],
  ['Link', 42, 'links'],
  ['Image', 43, 'images'],
  ['Icon', 44, 'icons'],
  ['SearchField', 45, 'searchFields'],
  ['ScrollView', 46, 'scrollViews'],
  ['ScrollBar', 47, 'scrollBars'],
  ['StaticText', 48, 'staticTexts'],
  ['TextField', 49, 'textFields'],
  ['SecureTextField', 50, 'secureTextFields'],
  ['DatePicker', 51, 'datePickers'],
  ['TextView', 52, 'textViews'],
  ['Menu', 53, 'menus'],
  ['MenuItem', 54, 'menuItems'],
  ['MenuBar', 55, 'menuBars'],
  ['MenuBarItem', 56, 'menuBarItems'],
  ['Map', 57, 'maps'],
  ['WebView', 58, 'webViews'],
  ['IncrementArrow', 59, 'incrementArrows'],
  ['DecrementArrow', 60, 'decrementArrows'],
  ['Timeline', 61, 'timelines'],
  ['RatingIndicator', 62, 'ratingIndicators'],
  ['ValueIndicator', 63, 'valueIndicators'],
  ['SplitGroup', 64, 'splitGroups'],
  ['Splitter', 65, 'splitters'],
  ['RelevanceIndicator', 66, 'relevanceIndicators'],
  ['ColorWell', 67, 'colorWells'],
  ['HelpTag', 68, 'helpTags'],
  ['Matte', 69, 'mattes'],
  ['DockItem', 70, 'dockItems'],
  ['Ruler', 71, 'rulers'],
  ['RulerMarker', 72, 'rulerMarkers'],
  ['Grid', 73, 'grids'],
  ['LevelIndicator', 74, 'levelIndicators'],
  ['Cell', 75, 'cells'],
  ['LayoutArea', 76, 'layoutAreas'],
  ['LayoutItem', 77, 'layoutItems'],
  ['Handle', 78, 'handles'],
  ['Stepper', 79, 'steppers'],
  ['Tab', 80, 'tabs'],
  ['TouchBar', 81, 'touchBars'],
  ['StatusItem', 82, 'statusItems'],
] as const;

/** A type's short name, as in `XCUIElementType<Name>`: Button, StaticText, TextField, ... */
export type ElementTypeName = (typeof TYPES)[number][0];

export interface ElementTypeInfo {
  name: ElementTypeName;
  /** `XCUIElementTypeButton`: Appium's `type` attribute, class name strategy and XPath tag. */
  xcuiName: string;
  /** The raw value of XCUIElement.ElementType, as a predicate's `elementType` compares it. */
  raw: number;
  /** The Swift enum case: `.button`, `.staticText`. */
  swiftCase: string;
  /** The XCUIElementTypeQueryProvider property (`app.buttons`); empty for the application itself. */
  query: string;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export const ELEMENT_TYPES: readonly ElementTypeInfo[] = TYPES.map(([name, raw, query]) => ({
  name,
  xcuiName: `XCUIElementType${name}`,
  raw,
  swiftCase: lowerFirst(name),
  query,
}));

const BY_NAME = new Map<string, ElementTypeInfo>(ELEMENT_TYPES.map((t) => [t.name, t]));
const BY_LOWER = new Map<string, ElementTypeInfo>();
for (const t of ELEMENT_TYPES) {
  for (const key of [t.name, t.xcuiName, t.swiftCase, t.query]) if (key !== '') BY_LOWER.set(key.toLowerCase(), t);
}
const BY_RAW = new Map<number, ElementTypeInfo>(ELEMENT_TYPES.map((t) => [t.raw, t]));

export function elementTypeInfo(name: ElementTypeName): ElementTypeInfo {
  return BY_NAME.get(name)!;
}

/** A type by any of its spellings: `XCUIElementTypeButton`, `Button`, `.button`, `button`, `buttons`. */
export function elementTypeByName(text: string): ElementTypeInfo | undefined {
  const key = text.trim().replace(/^\./, '').toLowerCase();
  return BY_LOWER.get(key);
}

export function elementTypeByRaw(raw: number): ElementTypeInfo | undefined {
  return BY_RAW.get(raw);
}

/**
 * The runner's className for each type (ElementLocator.swift `mapElementType`), read backwards. A few
 * UIKit classes the runner does not emit but other encoders (the demo, older runners) do are added.
 */
const CLASS_NAMES: Record<string, ElementTypeName> = {
  XCUIApplication: 'Application',
  UIWindow: 'Window',
  UIButton: 'Button',
  UILabel: 'StaticText',
  UITextField: 'TextField',
  UISecureTextField: 'SecureTextField',
  UITextView: 'TextView',
  UIImageView: 'Image',
  UISwitch: 'Switch',
  UISlider: 'Slider',
  UIPickerView: 'Picker',
  UITableView: 'Table',
  UITableViewCell: 'Cell',
  UICollectionViewCell: 'Cell',
  UIScrollView: 'ScrollView',
  UICollectionView: 'CollectionView',
  UINavigationBar: 'NavigationBar',
  UITabBar: 'TabBar',
  UIToolbar: 'Toolbar',
  UISearchBar: 'SearchField',
  UIAlertController: 'Alert',
  UIActionSheet: 'Sheet',
  UIProgressView: 'ProgressIndicator',
  UIActivityIndicatorView: 'ActivityIndicator',
  UISegmentedControl: 'SegmentedControl',
  UIStepper: 'Stepper',
  UIDatePicker: 'DatePicker',
  WKWebView: 'WebView',
  UILink: 'Link',
  UIKeyboard: 'Keyboard',
  UIKeyboardKey: 'Key',
  UIPageControl: 'PageIndicator',
  UIStatusBar: 'StatusBar',
};

/**
 * The runner's roles (ElementLocator.swift `mapRole`), the words SDK bridges use for roles (a bridge role
 * becomes the node's className in the merge, docs/rules.md#r-obs-03) and DOM roles and tags, lower-cased.
 */
const ROLES: Record<string, ElementTypeName> = {
  button: 'Button',
  link: 'Link',
  a: 'Link',
  switch: 'Switch',
  toggle: 'Switch',
  checkbox: 'CheckBox',
  radio: 'RadioButton',
  radiobutton: 'RadioButton',
  slider: 'Slider',
  range: 'Slider',
  textfield: 'TextField',
  input: 'TextField',
  textbox: 'TextField',
  securetextfield: 'SecureTextField',
  searchfield: 'SearchField',
  searchbox: 'SearchField',
  textview: 'TextView',
  textarea: 'TextView',
  image: 'Image',
  img: 'Image',
  text: 'StaticText',
  statictext: 'StaticText',
  label: 'StaticText',
  heading: 'StaticText',
  header: 'StaticText',
  list: 'Table',
  table: 'Table',
  tableview: 'Table',
  collectionview: 'CollectionView',
  listitem: 'Cell',
  cell: 'Cell',
  tab: 'Tab',
  tabbar: 'TabBar',
  tablist: 'TabBar',
  navigationbar: 'NavigationBar',
  toolbar: 'Toolbar',
  progressbar: 'ProgressIndicator',
  scrollview: 'ScrollView',
  webview: 'WebView',
  window: 'Window',
  alert: 'Alert',
  dialog: 'Alert',
  sheet: 'Sheet',
  select: 'Button',
  picker: 'Picker',
  keyboard: 'Keyboard',
  key: 'Key',
  application: 'Application',
  other: 'Other',
  view: 'Other',
  group: 'Other',
};

/**
 * The XCUIElement type of a node: its className when the runner names one (or a bridge or DOM role the
 * merge put there), else its role, else Other (the runner's `UIView`, what XCTest calls `.other`).
 */
export function elementTypeOf(node: { className?: unknown; role?: unknown }): ElementTypeName {
  const className = typeof node.className === 'string' ? node.className : '';
  const role = typeof node.role === 'string' ? node.role : '';
  // A tree names a handful of classes and roles many times over: each pair is read once (a 50,000-node
  // tree would otherwise lower-case 100,000 strings, docs/rules.md#r-perf-11).
  let byRole = KNOWN.get(className);
  if (!byRole) {
    if (KNOWN.size >= MAX_KNOWN) KNOWN.clear();
    byRole = new Map();
    KNOWN.set(className, byRole);
  }
  let type = byRole.get(role);
  if (type === undefined) {
    type = readType(className, role);
    if (byRole.size >= MAX_KNOWN) byRole.clear();
    byRole.set(role, type);
  }
  return type;
}

const KNOWN = new Map<string, Map<string, ElementTypeName>>();
/** Class names (and roles of one class) remembered, so names from a hostile peer cannot grow it without bound. */
const MAX_KNOWN = 1_000;

function readType(className: string, role: string): ElementTypeName {
  const fromClass = CLASS_NAMES[className];
  if (fromClass) return fromClass;
  const fromXcui = className.startsWith('XCUIElementType') ? elementTypeByName(className)?.name : undefined;
  if (fromXcui) return fromXcui;
  const fromClassRole = ROLES[className.toLowerCase()];
  if (fromClassRole) return fromClassRole;
  return ROLES[role.toLowerCase()] ?? 'Other';
}
