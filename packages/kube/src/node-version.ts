/**
 * The first thing a bin runs, before it loads anything that needs a newer Node: on an older Node (e.g. a machine's
 * Node 20 left on PATH) the dependencies die with stack traces such as undici's `createZstdDecompress.bind`; this says
 * what to do instead. No imports and no newer syntax or APIs, so it runs on any Node.
 */

/** The oldest Node the packages support (`engines` in package.json). */
export const MIN_NODE = '22.12.0';

/** The message for an unsupported Node, or undefined when `version` is new enough (pure). */
export function nodeVersionProblem(bin: string, version: string, execPath: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 12)) return undefined;
  return (
    `error: ${bin} needs Node >= ${MIN_NODE}, this is Node ${version} (${execPath}).\n` +
    '  In a clone of the Keelson repository: source scripts/bootstrap.sh (puts Node 24 and pnpm on PATH), then run the command again.\n' +
    `  Elsewhere: install Node >= ${MIN_NODE} (https://nodejs.org/en/download, or: nvm install 24).\n`
  );
}

/** Exits with {@link nodeVersionProblem}'s message (exit code 1) on an unsupported Node. */
export function assertNodeVersion(bin: string): void {
  const problem = nodeVersionProblem(bin, process.versions.node, process.execPath);
  if (problem === undefined) return;
  process.stderr.write(problem);
  process.exit(1);
}
