/** Whitespace as the C/POSIX locale defines it (space, \f, \n, \r, \t, \v). */
function isSpace(c: string): boolean {
  return c === ' ' || c === '\f' || c === '\n' || c === '\r' || c === '\t' || c === '\v';
}

/**
 * Splits one kernel command-line string into arguments like the kernel (and the machine-config-daemon) do:
 * on whitespace outside double quotes; quotes are kept in the token and cannot be escaped.
 */
export function splitKernelArguments(args: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = args.length;
  while (i < n) {
    while (i < n && isSpace(args[i] as string)) i++;
    const start = i;
    let inQuote = false;
    for (; i < n; i++) {
      const c = args[i] as string;
      if (isSpace(c) && !inQuote) break;
      if (c === '"') inQuote = !inQuote;
    }
    if (i > start) out.push(args.slice(start, i));
  }
  return out;
}

/** Splits every MachineConfig `kernelArguments` entry and flattens the result (order kept, duplicates kept). */
export function parseKernelArguments(kargs: readonly string[] | null | undefined): string[] {
  const out: string[] = [];
  for (const k of kargs ?? []) for (const a of splitKernelArguments(k)) out.push(a.trim());
  return out;
}

/**
 * The `rpm-ostree kargs` arguments for moving from the old to the new MachineConfig kernel arguments: every old
 * argument as `--delete-if-present=<arg>`, then every new one as `--append=<arg>` (one invocation).
 */
export function generateKargs(
  oldKernelArguments: readonly string[] | null | undefined,
  newKernelArguments: readonly string[] | null | undefined,
): string[] {
  const out: string[] = [];
  for (const a of parseKernelArguments(oldKernelArguments)) out.push(`--delete-if-present=${a}`);
  for (const a of parseKernelArguments(newKernelArguments)) out.push(`--append=${a}`);
  return out;
}

/** Splits a kernel command line (e.g. `rpm-ostree kargs` output) into arguments. */
export function parseKernelCommandLine(line: string): string[] {
  return splitKernelArguments(line);
}
