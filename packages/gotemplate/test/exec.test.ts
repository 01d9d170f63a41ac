import { describe, expect, it } from 'vitest';
import { Template, TemplateExecError, TemplateParseError } from '../src/index.js';
import { cmpTests, errorTests, execTests } from './data/go-exec-tests.js';
import { cmpStruct, testFuncs, values } from './data/go-values.js';

function dataOf(d: string | number | boolean | null): unknown {
  if (typeof d === 'string') return d.startsWith('str:') ? d.slice(4) : values[d];
  return d;
}

describe("Go's exec_test.go execTests", () => {
  it.each(execTests)('%s', (name, input, output, ok, data) => {
    const run = (): string => Template.new(name).funcs(testFuncs).parse(input).execute(dataOf(data));
    if (ok) expect(run()).toBe(output);
    else expect(run).toThrow(TemplateExecError);
  });
});

describe("Go's exec_test.go cmpTests", () => {
  it.each(cmpTests)('%s', (expr, truth, ok) => {
    const t = Template.new('empty').parse(`{{if ${expr}}}true{{else}}false{{end}}`);
    if (ok) expect(t.execute(cmpStruct)).toBe(truth);
    else expect(() => t.execute(cmpStruct)).toThrow(TemplateExecError);
  });
});

describe("Go's error messages", () => {
  it.each(errorTests)('%s', (_name, input, data, message) => {
    let err: unknown;
    try {
      const t = Template.new('top').parse(input);
      if (data === 'emptyMapError') t.option('missingkey=error');
      t.execute(data === null ? 0 : values[data]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(message);
    expect(err instanceof TemplateExecError || err instanceof TemplateParseError).toBe(true);
  });
});
