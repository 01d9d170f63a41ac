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

/** Kernel arguments RHEL-family hosts may tune through the firstboot tuning file. */
export const TUNABLE_EL_KARGS: readonly string[] = Object.freeze(['nosmt']);

/**
 * The `rpm-ostree kargs` calls the daemon makes for the firstboot tuning file (`/etc/pivot/kernel-args`): each
 * `ADD <arg>` line whose bare argument is tunable and not already on `cmdline` gives `['kargs', '--append=<arg>']`,
 * then each `DELETE <arg>` line whose argument is present gives `['kargs', '--delete=<arg>']` (one call per argument;
 * on RHEL-family hosts only {@link TUNABLE_EL_KARGS} are tunable, on FCOS every argument, elsewhere none; other
 * lines are ignored).
 */
export function tuningKargsCalls(tuningFile: string, cmdline: string, hostOs: 'el' | 'fcos' | 'other'): string[][] {
  const tunable = (k: string): boolean =>
    hostOs === 'fcos' ? true : hostOs === 'el' ? TUNABLE_EL_KARGS.includes(k) : false;
  const inUse = (k: string): boolean => ` ${cmdline.trim()} `.includes(` ${k} `);
  const adds: string[][] = [];
  const dels: string[][] = [];
  for (const line of tuningFile.split('\n')) {
    if (line.startsWith('ADD ')) {
      const k = line.slice(4).trim();
      if (k !== '' && tunable(k) && !inUse(k)) adds.push(['kargs', `--append=${k}`]);
    } else if (line.startsWith('DELETE ')) {
      const k = line.slice(7).trim();
      if (k !== '' && tunable(k) && inUse(k)) dels.push(['kargs', `--delete=${k}`]);
    }
  }
  return [...adds, ...dels];
}
