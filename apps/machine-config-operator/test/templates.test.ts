/** The generated-config controller's suffix choice (`src/controllers/generated/controller.ts` `chooseSuffix`). */
import { describe, expect, it } from 'vitest';
import { chooseSuffix } from '../src/controllers/generated/controller.js';

describe('KubeletConfig / ContainerRuntimeConfig machine config names', () => {
  it('numbers further configs for the same kind with the mc-name-suffix annotation', () => {
    const kc = (
      name: string,
      suffix?: string,
    ): { metadata: { name: string; annotations?: Record<string, string> }; spec: Record<string, never> } => ({
      metadata: {
        name,
        ...(suffix !== undefined
          ? { annotations: { 'machineconfiguration.openshift.io/mc-name-suffix': suffix } }
          : {}),
      },
      spec: {},
    });
    expect(chooseSuffix(kc('a'), [kc('a')])).toBe('');
    expect(chooseSuffix(kc('b'), [kc('a', ''), kc('b')])).toBe('1');
    expect(chooseSuffix(kc('c'), [kc('a', ''), kc('b', '1'), kc('c')])).toBe('2');
    expect(chooseSuffix(kc('a', '3'), [])).toBe('3');
  });
});
