import { describe, expect, it } from 'vitest';
import { compareUtf8, goJsonMarshal, goJsonString } from '../src/index.js';

describe('the one Go encoding/json encoder', () => {
  it('escapes strings as Go: named escapes, controls, HTML-sensitive characters, lone surrogates to U+FFFD', () => {
    expect(goJsonString('a"b\\c\n\r\t\b\f\u0001<>&\u2028\u2029é😀')).toBe(
      '"a\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u003c\\u003e\\u0026\\u2028\\u2029é😀"',
    );
    expect(goJsonString('x\ud800y\udc00')).toBe('"x\ufffdy\ufffd"');
    expect(goJsonMarshal({ k: 'x\ud800' })).toBe('{"k":"x\ufffd"}');
  });

  it('sorts map keys by UTF-8 bytes (astral after the rest of the BMP), numeric-looking keys too', () => {
    expect(goJsonMarshal({ b: 1, a: [true, null], '10': 'x', '9': 2.5 })).toBe(
      '{"10":"x","9":2.5,"a":[true,null],"b":1}',
    );
    expect(['\uffff', '😀', 'z'].sort(compareUtf8)).toEqual(['z', '\uffff', '😀']);
    expect(goJsonMarshal({ '\uffff': 1, '😀': 2 })).toBe('{"\uffff":1,"😀":2}');
  });

  it('keeps struct order without sortKeys, leaves undefined fields out and writes MarshalIndent', () => {
    expect(goJsonMarshal({ z: 1, a: undefined, m: [] }, { sortKeys: false })).toBe('{"z":1,"m":[]}');
    expect(goJsonMarshal({ b: { y: [1, {}], x: '<' }, a: {} }, { indent: '  ' })).toBe(
      '{\n  "a": {},\n  "b": {\n    "x": "\\u003c",\n    "y": [\n      1,\n      {}\n    ]\n  }\n}',
    );
    expect(goJsonMarshal([Infinity, undefined, 1e21, -0])).toBe('[null,null,1e+21,0]');
  });
});
