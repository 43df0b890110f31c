/** R-MEM-07: a reply's JSON made a piece at a time is JSON.stringify's text, byte for byte. */
import { describe, expect, it } from 'vitest';
import { jsonChunks } from '@main/host/json-chunks';

const cases: [string, unknown][] = [
  [
    'a listing in an envelope',
    {
      id: 3,
      ok: true,
      result: {
        path: '/t',
        steps: [
          { callId: 'a', n: 1 },
          { callId: 'b', before: { time: 2 } },
        ],
        warnings: [],
      },
    },
  ],
  [
    'undefined, functions and symbols: left out of objects, null in arrays',
    { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol('s'), 1], d: Symbol('x') },
  ],
  ['a value with toJSON, at every level', { when: new Date(0), list: [new Date(1), { toJSON: () => 'mine' }], nested: { deep: { deeper: [new Date(2)] } } }],
  ['keys that need escaping', { 'a"b': 1, 'line\nbreak': ['\u2028', '\u{1F600}'], '': null }],
  ['scalars and empties', [null, true, 0, -0, 1.5e300, NaN, Infinity, '', [], {}, [[]], { x: {} }]],
  ['a bare string', 'text'],
  ['an object of no prototype', Object.assign(Object.create(null) as object, { a: [1, 2] })],
];

describe('R-MEM-07: jsonChunks', () => {
  for (const [name, value] of cases) {
    it(`R-MEM-07: ${name}: joined, it is JSON.stringify's text, for any piece size`, () => {
      for (const budget of [1, 7, 1 << 20]) expect([...jsonChunks(value, budget)].join('')).toBe(JSON.stringify(value));
    });
  }

  it('R-MEM-07: a long array comes in pieces about the budget, never one string of the whole', () => {
    const steps = Array.from({ length: 10_000 }, (_, i) => ({ callId: `call-${i}`, action: 'tap "Sign In"', target: '#login.submit' }));
    const value = { id: 1, ok: true, result: { steps } };
    const pieces = [...jsonChunks(value, 4096)];
    expect(pieces.join('')).toBe(JSON.stringify(value));
    expect(pieces.length).toBeGreaterThan(JSON.stringify(value).length / (4096 + 100));
    // A piece ends once it holds the budget: at most the budget plus one element.
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(4096 + JSON.stringify(steps[0]).length + 16);
  });
});
