import { describe, expect, it } from 'vitest';
import { RENDERED_NAME_SALT, RenderedNameError, hashInputYAML, renderedName } from '../src/hash.js';
import type { MachineConfigSpec } from '../src/types.js';
import { mcoConstants, vectorsFor } from './vectors.js';

interface HashSpecInput {
  osImageURL?: string;
  baseOSExtensionsContainerImage?: string;
  configRaw?: string;
  kernelArguments?: string[] | null;
  extensions?: string[] | null;
  fips?: boolean;
  kernelType?: string;
}

function toSpec(h: HashSpecInput): MachineConfigSpec {
  const { configRaw, ...rest } = h;
  return configRaw === undefined ? rest : { ...rest, config: configRaw };
}

describe('renderedName: hash/* vectors', () => {
  it('uses the salt given by the vectors', () => {
    expect([...RENDERED_NAME_SALT]).toEqual(mcoConstants.hashSalt);
  });
  const vs = vectorsFor('render.getMachineConfigHashedName');
  it('has the 16 vectors', () => expect(vs.length).toBe(16));
  for (const v of vs) {
    it(v.name, () => {
      const spec = toSpec(v.input['hashSpec'] as HashSpecInput);
      const pool = v.input['pool'] as string;
      if (typeof v.expected['error'] === 'string') {
        expect(() => renderedName(pool, spec)).toThrow(RenderedNameError);
        expect(() => renderedName(pool, spec)).toThrow(v.expected['error']);
        return;
      }
      expect(hashInputYAML(spec)).toBe(v.expected['hashInputYAML']);
      expect(renderedName(pool, spec)).toBe(v.expected['renderedName']);
    });
  }
});
