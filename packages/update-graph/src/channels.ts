/**
 * Checks of a requested update channel against a version, like a cluster administrator would want them: OpenShift
 * channels are named `<stream>-<major>.<minor>` and carry the releases of that minor and of the minor before it (the
 * versions a cluster updates from), and graph nodes list their channels in
 * `io.openshift.upgrades.graph.release.channels`. The checks warn; they never refuse (channels are data).
 */
import type { Graph } from './graph.js';
import { isSemver, parseSemver } from './semver.js';

/** The channel streams OpenShift publishes (`stable-4.16`, `eus-4.16`, ...). */
export const KNOWN_CHANNEL_STREAMS = ['candidate', 'fast', 'stable', 'eus'] as const;
/** One of {@link KNOWN_CHANNEL_STREAMS}; any other string is accepted for forward compatibility. */
export type ChannelStream = (typeof KNOWN_CHANNEL_STREAMS)[number];

/** Node metadata key listing the channels a release is in (comma separated). */
export const CHANNELS_METADATA_KEY = 'io.openshift.upgrades.graph.release.channels';

const CHANNEL_NAME = /^([a-z]+)-(\d+)\.(\d+)$/;

/** `stream`, `major` and `minor` of an OpenShift channel name, or undefined when the name has another shape. */
export function parseChannelName(channel: string): { stream: string; major: number; minor: number } | undefined {
  const m = CHANNEL_NAME.exec(channel);
  if (!m) return undefined;
  return { stream: m[1] ?? '', major: Number(m[2]), minor: Number(m[3]) };
}

/**
 * Warnings about `channel` for a cluster at `version`, from the names alone: an unknown stream, or a version whose
 * minor the channel does not carry (channel X.Y carries X.(Y-1) and X.Y releases).
 */
export function channelVersionWarnings(channel: string, version: string): string[] {
  const c = parseChannelName(channel);
  if (c === undefined) {
    return [
      `channel "${channel}" does not look like an OpenShift channel (<stream>-<major>.<minor>, e.g. stable-4.18; streams: ${KNOWN_CHANNEL_STREAMS.join(', ')})`,
    ];
  }
  const out: string[] = [];
  if (!(KNOWN_CHANNEL_STREAMS as readonly string[]).includes(c.stream)) {
    out.push(
      `unknown channel stream "${c.stream}" in "${channel}"; known streams: ${KNOWN_CHANNEL_STREAMS.join(', ')}`,
    );
  }
  if (!isSemver(version)) return out;
  const v = parseSemver(version);
  const carried = v.major === c.major && (v.minor === c.minor || v.minor === c.minor - 1);
  if (!carried) {
    const prev = c.minor > 0 ? `${c.major}.${c.minor - 1} and ` : '';
    out.push(
      `version ${version} is not in channel "${channel}": it carries ${prev}${c.major}.${c.minor} releases; a cluster at ${v.major}.${v.minor} uses a ${v.major}.${v.minor} or ${v.major}.${v.minor + 1} channel (e.g. ${c.stream}-${v.major}.${v.minor})`,
    );
  }
  return out;
}

/**
 * Warnings from a graph's own data: the node of `version` lists its channels and `channel` is not among them (a
 * graph file of another channel, or a version removed from the channel).
 */
export function channelMembershipWarnings(graph: Graph, channel: string, version: string): string[] {
  const i = graph.indexOf(version);
  if (i < 0) return [];
  const listed = graph.nodes[i]?.metadata[CHANNELS_METADATA_KEY];
  if (typeof listed !== 'string' || listed === '') return [];
  const channels = listed
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (channels.includes(channel)) return [];
  return [
    `version ${version} is not in channel "${channel}" according to the graph (its node lists: ${channels.join(', ')})`,
  ];
}
