/**
 * RFC 8785 (JCS) against the RFC's own examples: §3.2.2 (the sample object), §3.2.3 (member
 * sorting by UTF-16 code units) and Appendix B (number serialization, IEEE 754 bit patterns).
 */
import { MAX_JSON_DEPTH, canonicalJson, isVerifyError } from '../../src/verify/index.js';

const fromBits = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('canonical JSON (RFC 8785)', () => {
  it('writes the §3.2.2 sample exactly as the RFC does', () => {
    const input = JSON.parse(
      '{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n  "literals": [null, true, false]\n}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (§3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const order = [...canonicalJson(input).matchAll(/:"([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('writes the IEEE 754 value %s as %s (Appendix B)', (bits, text) => {
    expect(canonicalJson(fromBits(bits))).toBe(text);
  });

  it.each([
    ['NaN', fromBits('7fffffffffffffff')],
    ['Infinity', fromBits('7ff0000000000000')],
    ['a lone surrogate in a string', { a: 'x\ud800' }],
    ['a lone surrogate in a member name', { ['\udc00']: 1 }],
    ['a bigint', { a: 1n }],
    ['a function', { a: () => 1 }],
    ['a Date', { a: new Date(0) }],
    ['a Map', new Map()],
    ['undefined in an array', [1, undefined]],
    ['a hole in an array', [1, , 2]], // eslint-disable-line no-sparse-arrays
    ['a class instance', new (class Point {})()],
  ])('refuses %s', (_what, value) => {
    let error: unknown;
    try {
      canonicalJson(value);
    } catch (e) {
      error = e;
    }
    expect(isVerifyError(error, 'LEAF_INVALID')).toBe(true);
  });

  it('names where the refused value is', () => {
    expect(() => canonicalJson({ body: { scores: [1, Number.NaN] } })).toThrow('$.body.scores[1]');
  });

  it('leaves out members whose value is undefined, as a stored JSON text has none', () => {
    expect(canonicalJson({ b: undefined, a: null, c: { d: undefined } })).toBe('{"a":null,"c":{}}');
  });

  it(`refuses values nested deeper than ${MAX_JSON_DEPTH} levels instead of exhausting the stack`, () => {
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_JSON_DEPTH; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow('nests deeper');
  });

  it('sorts array-index and __proto__ member names like any other (JavaScript enumerates indexes first)', () => {
    const input = JSON.parse('{"a":{"__proto__":3,"b":[1,"x"]},"2":2,"10":1,"01":0}') as unknown;
    expect(canonicalJson(input)).toBe('{"01":0,"10":1,"2":2,"a":{"__proto__":3,"b":[1,"x"]}}');
  });

  it('writes nested objects inside arrays in canonical order', () => {
    expect(canonicalJson({ z: [{ b: 1, a: [{ d: 2, c: 3 }] }], y: -0 })).toBe(
      '{"y":0,"z":[{"a":[{"c":3,"d":2}],"b":1}]}',
    );
  });

  it('accepts objects without a prototype and escapes only what JSON requires', () => {
    const bare = Object.assign(Object.create(null) as object, {
      z: '\u007f\u2028<>&',
      a: '\b\f\n\r\t\u001f',
    });
    expect(canonicalJson(bare)).toBe('{"a":"\\b\\f\\n\\r\\t\\u001f","z":"\u007f\u2028<>&"}');
  });
});
