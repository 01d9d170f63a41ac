/**
 * Line numbers of offsets in one text, computed from an index of newline positions built once (linear), so that
 * looking up the line of every action or document of a large file stays linear overall (binary search per lookup).
 */
export class LineIndex {
  private starts: number[] | undefined;

  constructor(private readonly text: string) {}

  private build(): number[] {
    const starts = [0];
    let i = this.text.indexOf('\n');
    while (i >= 0) {
      starts.push(i + 1);
      i = this.text.indexOf('\n', i + 1);
    }
    return starts;
  }

  /** 1-based line of the character at `offset`. */
  lineAt(offset: number): number {
    this.starts ??= this.build();
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((s[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}
