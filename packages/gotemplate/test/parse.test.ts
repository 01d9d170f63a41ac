import { describe, expect, it } from 'vitest';
import { sprintf, Template, TemplateParseError } from '../src/index.js';

const run = (src: string, data?: unknown): string => Template.new('t').parse(src).execute(data);

describe('trim markers, comments, raw strings (Go parse_test/exec_test cases)', () => {
  it.each([
    ['{{23 -}} < {{- 45}}', '23<45'],
    ['{{23 -}}\n\t < \n{{- 45}}', '23<45'],
    ['x {{- /* comment */ -}} y', 'xy'],
    ['x {{/* comment */}} y', 'x  y'],
    ['{{`raw \\n string`}}', 'raw \\n string'],
    ['{{"quoted \\t string"}}', 'quoted \t string'],
    ['{{-3}}', '-3'],
    ['{{ 0x1F }} {{ 0o17 }} {{ 0b101 }} {{ 1_000 }} {{ 017 }}', '31 15 5 1000 15'],
    ["{{ 'a' }} {{ '\\n' }}", '97 10'],
    ['{{1.5e3}} {{1e6}} {{0.000001}}', '1500 1e+06 1e-06'],
  ])('%j', (src, want) => expect(run(src)).toBe(want));

  it('define, template and block (TestBlock)', () => {
    const t = Template.new('outer').parse('a({{block "inner" .}}bar({{.}})baz{{end}})b');
    expect(t.execute('hello')).toBe('a(bar(hello)baz)b');
    t.parse('{{define "inner"}}foo({{.}})bar{{end}}');
    expect(t.execute('goodbye')).toBe('a(foo(goodbye)bar)b');
  });

  it('TestTree with custom delimiters and trimming', () => {
    const treeTemplate = `
	(- define "tree" -)
	[
		(- .Val -)
		(- with .Left -)
			(template "tree" . -)
		(- end -)
		(- with .Right -)
			(- template "tree" . -)
		(- end -)
	]
	(- end -)
`;
    const node = (val: number, left?: object, right?: object): object => ({
      Val: val,
      ...(left ? { Left: left } : {}),
      ...(right ? { Right: right } : {}),
    });
    const tree = node(1, node(2, node(3, node(4)), node(5, node(6))), node(7, node(8, node(9)), node(10, node(11))));
    const t = Template.new('root').delims('(', ')').parse(treeTemplate);
    expect(t.lookup('tree')?.execute(tree)).toBe('[1[2[3[4]][5[6]]][7[8[9]][10[11]]]]');
    expect(t.executeTemplate('tree', tree)).toBe('[1[2[3[4]][5[6]]][7[8[9]][10[11]]]]');
  });

  it('empty template and unknown template errors as Go', () => {
    expect(() => Template.new('empty').execute(0)).toThrow(
      'template: empty: "empty" is an incomplete or empty template',
    );
    expect(() => Template.new('x').parse('a').executeTemplate('nope', 0)).toThrow(
      'template: no template "nope" associated with template "x"',
    );
    expect(() => run('{{template "nope"}}')).toThrow(
      'template: t:1:11: executing "t" at <{{template "nope"}}>: template "nope" not defined',
    );
  });

  it.each([
    ['{{range .X}}{{end}}{{else}}', 'template: t:1: unexpected {{else}}'],
    ['{{if}}', 'template: t:1: missing value for if'],
    ['{{range $a, $b, $c := .}}{{end}}', 'template: t:1: too many declarations in range'],
    ['{{.X | printf "%d" | 1}}', 'template: t:1: non executable command in pipeline stage 3'],
    ['{{"x".y}}', 'template: t:1: unexpected . after term "\\"x\\""'],
    ['{{define "a"}}a{{end}}{{define "a"}}b{{end}}', 'template: t:1: template: multiple definition of template "a"'],
  ])('parse error %j', (src, msg) => {
    expect(() => Template.new('t').parse(src)).toThrow(TemplateParseError);
    expect(() => Template.new('t').parse(src)).toThrow(msg);
  });

  it('missingkey options (TestMissingMapKey)', () => {
    const t = Template.new('t1').parse('{{.x}} {{.y}}');
    const data = new Map([['x', 99]]);
    expect(t.execute(data)).toBe('99 <no value>');
    t.option('missingkey=zero');
    expect(t.execute({ x: 99 })).toBe('99 <nil>');
    t.option('missingkey=error');
    expect(() => t.execute(data)).toThrow('map has no entry for key "y"');
    expect(() => t.execute(null)).toThrow('nil data; no entry for key "x"');
  });

  it('bounds hostile recursion', () => {
    const t = Template.new('top', { maxDepth: 50 }).parse('{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}');
    expect(() => t.execute(0)).toThrow('exceeded maximum template depth (50)');
  });
});

describe("fmt verbs (Go's fmt semantics)", () => {
  it.each([
    ['%s|%v|%q', ['a', 'b', 'c"d'], 'a|b|"c\\"d"'],
    ['%d|%5d|%-5d|%05d|%+d', [1, 2, 3, 4, 5], '1|    2|3    |00004|+5'],
    ['%x|%X|%#x|%o|%b', [255, 255, 255, 8, 5], 'ff|FF|0xff|10|101'],
    ['%x', ['hi'], '6869'],
    ['%t|%v', [true, false], 'true|false'],
    ['%d', ['x'], '%!d(string=x)'],
    ['%d %d', [1], '1 %!d(MISSING)'],
    ['%d', [1, 2], '1%!(EXTRA int=2)'],
    ['%v', [[1, 'a', true]], '[1 a true]'],
    [
      '%v',
      [
        new Map([
          ['b', 2],
          ['a', 1],
        ]),
      ],
      'map[a:1 b:2]',
    ],
    ['%q', [65], "'A'"],
    ['%c|%U', [0x4e16, 0x4e16], '世|U+4E16'],
    ['%8.3f|%-8.2e|%g', [3.14159, 1234.5678, 0.00001234], '   3.142|1.23e+03|1.234e-05'],
    ['%T %T %T', [1, 'x', [1]], 'int string []interface {}'],
    ['100%%', [], '100%'],
    ['%.2s|%5s|%-5s|', ['abc', 'ab', 'ab'], 'ab|   ab|ab   |'],
  ])('%s', (format, args, want) => expect(sprintf(format, args)).toBe(want));
});
