/**
 * `@keelson/payload-gen`: the release generator of `@keelson/rehearsal` (its `src/release`, published as
 * `@keelson/rehearsal/release`), bundled into this private tool at build time. Tests and benchmarks of the packages
 * the rehearsal itself depends on (the operator apps, `@keelson/release-payload`, `@keelson/manifest-graph`) generate
 * releases through it without depending on the rehearsal, which would be a dependency cycle; the CLI uses the
 * rehearsal's copy at run time, never this tool.
 */
export * from '../../../packages/rehearsal/src/release/index.js';
