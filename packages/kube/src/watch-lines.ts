/**
 * Splits a watch stream's text into its event lines (one JSON object a line, as kube-apiserver's watch encoder
 * writes them; client-go reads them with its framer, k8s.io/apimachinery pkg/util/framer `NewJSONFramedReader`).
 *
 * Linear in the text received: each chunk is scanned once, from where the previous line ended, and a line that
 * spans several chunks is kept as a list of parts joined once when its newline arrives. (Appending every chunk to
 * one string and searching that string from its start again, as the client once did, costs O(line² ÷ chunk) for a
 * line split over many chunks.)
 */
export class WatchLineSplitter {
  private parts: string[] = [];
  private pendingLength = 0;
  private tooLong = false;

  /** @param maxLineLength longest line accepted, in UTF-16 code units. */
  constructor(private readonly maxLineLength: number) {}

  /**
   * Adds `chunk` and returns the complete lines it ends, trimmed, empty ones left out. When a line exceeds the
   * limit, it returns the lines before it, sets {@link overflowed} and holds nothing more from then on.
   */
  push(chunk: string): string[] {
    const lines: string[] = [];
    if (this.tooLong) return lines;
    let start = 0;
    let nl = chunk.indexOf('\n');
    while (nl >= 0) {
      if (!this.take(lines, chunk.slice(start, nl))) return lines;
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) {
      const rest = chunk.length - start;
      if (this.pendingLength + rest > this.maxLineLength) return this.overflow(lines);
      this.parts.push(start === 0 ? chunk : chunk.slice(start));
      this.pendingLength += rest;
    }
    return lines;
  }

  /** True once a line exceeded the limit. */
  get overflowed(): boolean {
    return this.tooLong;
  }

  /** Length of the incomplete line held (code units). */
  get pending(): number {
    return this.pendingLength;
  }

  /** Completes the held line with `tail`; false when it is too long. */
  private take(lines: string[], tail: string): boolean {
    if (this.pendingLength + tail.length > this.maxLineLength) {
      this.overflow(lines);
      return false;
    }
    let line = tail;
    if (this.parts.length > 0) {
      this.parts.push(tail);
      line = this.parts.join('');
      this.parts = [];
      this.pendingLength = 0;
    }
    const trimmed = line.trim();
    if (trimmed.length > 0) lines.push(trimmed);
    return true;
  }

  private overflow(lines: string[]): string[] {
    this.tooLong = true;
    this.parts = [];
    this.pendingLength = 0;
    return lines;
  }
}
