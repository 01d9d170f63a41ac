import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { channelMembershipWarnings, channelVersionWarnings, Graph, parseChannelName } from '../src/index.js';
import { STABLE_47, STABLE_49 } from './helpers.js';

describe('channel checks', () => {
  it('parses OpenShift channel names', () => {
    expect(parseChannelName('stable-4.9')).toEqual({ stream: 'stable', major: 4, minor: 9 });
    expect(parseChannelName('stable')).toBeUndefined();
  });

  it('warns when the version is not carried by the channel (stable-4.9 carries 4.8 and 4.9)', () => {
    const [w, ...more] = channelVersionWarnings('stable-4.9', '4.7.0');
    expect(more).toEqual([]);
    expect(w).toBe(
      'version 4.7.0 is not in channel "stable-4.9": it carries 4.8 and 4.9 releases; a cluster at 4.7 uses a 4.7 or 4.8 channel (e.g. stable-4.7)',
    );
    expect(channelVersionWarnings('stable-4.9', '4.8.18')).toEqual([]);
    expect(channelVersionWarnings('stable-4.9', '4.9.0')).toEqual([]);
    expect(channelVersionWarnings('fast-4.9', '5.9.0')).toHaveLength(1);
  });

  it('warns about unknown streams and names of another shape, listing the known streams', () => {
    expect(channelVersionWarnings('stabel-4.9', '4.9.1')).toEqual([
      'unknown channel stream "stabel" in "stabel-4.9"; known streams: candidate, fast, stable, eus',
    ]);
    expect(channelVersionWarnings('stable', '4.9.1')[0]).toMatch(
      /does not look like an OpenShift channel .*streams: candidate, fast, stable, eus/,
    );
  });

  it("uses the graph node's channel list (a stable-4.7 graph asked for stable-4.9)", () => {
    const g47 = Graph.parse(readFileSync(STABLE_47, 'utf8'));
    expect(channelMembershipWarnings(g47, 'stable-4.9', '4.7.0')).toEqual([
      'version 4.7.0 is not in channel "stable-4.9" according to the graph (its node lists: candidate-4.7, fast-4.7, stable-4.7, candidate-4.8, fast-4.8, stable-4.8)',
    ]);
    expect(channelMembershipWarnings(g47, 'stable-4.7', '4.7.0')).toEqual([]);
    const g49 = Graph.parse(readFileSync(STABLE_49, 'utf8'));
    expect(channelMembershipWarnings(g49, 'stable-4.9', '4.7.0')).toEqual([]);
  });
});
