/**
 * Regular expressions from graph data (`blocked-edges` `from`, `previous.remove_regex`) run on RE2 semantics with a
 * linear-time engine (re2js, a JavaScript port of RE2), like upstream graph-builder's Rust `regex` crate: a crafted
 * pattern or version string cannot make matching backtrack exponentially.
 */
import { RE2JS } from 're2js';

/** A compiled pattern; `test` is an unanchored search like Rust's `Regex::is_match`. */
export interface LinearRegex {
  readonly source: string;
  test(input: string): boolean;
}

/** Longest pattern accepted (graph-data patterns are a few dozen characters). */
export const MAX_PATTERN_LENGTH = 4096;

/**
 * Compiles `pattern` with RE2 syntax. Throws an `Error` whose message says why the pattern is invalid (a
 * backtracking-only construct such as a back-reference or look-around is invalid, as upstream).
 */
export function compileLinearRegex(pattern: string): LinearRegex {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new Error(`pattern is ${pattern.length} characters long, above the ${MAX_PATTERN_LENGTH}-character limit`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    throw new Error((e as Error).message, { cause: e });
  }
  return { source: pattern, test: (input: string) => re.test(input) };
}
