import { describe, expect, it } from 'vitest';
import { GoStruct, Template, TemplateExecError } from '../src/index.js';

// The README example, run as written.
describe('README example', () => {
  it('renders as documented', () => {
    const t = Template.new('motd')
      .funcs({ upper: (s: unknown) => String(s).toUpperCase() })
      .parse(
        `{{- range $name, $ip := .Nodes}}{{$name}}={{$ip}} {{end}}
{{- with .Proxy}}proxy {{.HTTPProxy}}{{else}}no proxy{{end}}
{{printf "%-6s|%03d|%q" (upper .Cluster) 7 "x"}}`,
      );
    expect(t.execute({ Nodes: { worker: '10.0.0.2', master: '10.0.0.1' }, Proxy: null, Cluster: 'ocp' })).toBe(
      'master=10.0.0.1 worker=10.0.0.2 no proxy\nOCP   |007|"x"',
    );
    const cfg = new GoStruct('v1.Config', new Map([['Name', 'a']]), new Map([['Upper', () => 'A']]));
    expect(Template.new('s').parse('{{.Name}}{{.Upper}}').execute(cfg)).toBe('aA');
    expect(() => Template.new('e').parse('{{.Missing}}').execute(cfg)).toThrow(TemplateExecError);
    expect(() => Template.new('e').parse('{{.Missing}}').execute(cfg)).toThrow(
      'template: e:1:2: executing "e" at <.Missing>: can\'t evaluate field Missing in type v1.Config',
    );
  });
});
