/** yaml.v2's character classes (yaml.v2 yamlprivateh.go), by code point. */
// ---------------------------------------------------------------------------------------------------------------
// Character classes (by code point; the Go code works on UTF-8 bytes but every test is per character).

export const isPrintable = (c: number): boolean =>
  c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
export const isSpace = (c: number | undefined): boolean => c === 0x20;
export const isBlank = (c: number | undefined): boolean => c === 0x20 || c === 0x09;
export const isBreak = (c: number | undefined): boolean =>
  c === 0x0d || c === 0x0a || c === 0x85 || c === 0x2028 || c === 0x2029;
export const isBlankZ = (c: number | undefined): boolean => c === undefined || c === 0 || isBlank(c) || isBreak(c);

/** Characters the yaml.v2 reader refuses ("control characters are not allowed"). */
export function yamlReaderAccepts(c: number): boolean {
  return (
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    (c >= 0x20 && c <= 0x7e) ||
    c === 0x85 ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

const SURROGATE = /[\ud800-\udfff]/;
export function codePoints(s: string): number[] {
  if (!SURROGATE.test(s)) {
    const fast = new Array<number>(s.length);
    for (let i = 0; i < s.length; i++) fast[i] = s.charCodeAt(i);
    return fast;
  }
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    // Lone surrogates cannot come out of Go's encoding/json (invalid UTF-8 becomes U+FFFD).
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}
