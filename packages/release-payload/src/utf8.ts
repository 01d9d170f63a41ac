import { isUtf8 } from 'node:buffer';

/**
 * Byte offset of the first invalid UTF-8 sequence in `bytes` (overlong forms, surrogates, code points above
 * U+10FFFF and truncated sequences are invalid, as in Go's `utf8.Valid`), or -1 when all of it is valid.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let len: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [len, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [len, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [len, min] = [4, 0x10000];
    else return i;
    if (i + len > n) return i;
    let cp = b & (0xff >> (len + 1));
    for (let k = 1; k < len; k++) {
      const c = bytes[i + k] ?? 0;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += len;
  }
  return -1;
}

/** 1-based line of a byte offset (newlines counted in the bytes before it). */
export function lineOfByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}
