/**
 * The container runtime of the rehearsal's virtual kubelet: runs the commands of a payload-retrieval Pod against a
 * node directory instead of a real container. The image's files are a directory (the payload as pulled), `hostPath`
 * volumes are directories under the node's root, and the commands are the busybox subset those Pods use (`mkdir`,
 * `cp -r`, `mv`, `rm -fR`, `sh -c` with a list of those), carried out with node:fs. Every path is mapped and must stay
 * inside its mapped root, so a hostile Pod spec cannot touch anything else; a command outside the subset fails as an
 * exec of a missing binary does (exit 127).
 */
import { cp, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, posix, resolve, sep } from 'node:path';

/** Where the container's paths lead. */
export interface ContainerFs {
  /** The image's root filesystem (read-only here). */
  imageRoot: string;
  /** Volume mounts: container path → directory on this machine. */
  mounts: { mountPath: string; dir: string }[];
}

/** Result of one container run. */
export interface ExecResult {
  exitCode: number;
  /** What the command wrote to stderr (kept for logs; kubelet's termination message stays empty by default). */
  stderr: string;
}

class ExecFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Maps an absolute container path to this machine; mounts win over the image, writes to the image are refused. */
export function mapPath(fs: ContainerFs, path: string, write: boolean): string {
  const p = posix.normalize(path);
  if (!p.startsWith('/')) throw new ExecFailure(1, `${path}: not an absolute path`);
  const m = [...fs.mounts]
    .sort((a, b) => b.mountPath.length - a.mountPath.length)
    .find((x) => p === x.mountPath || p.startsWith(x.mountPath.endsWith('/') ? x.mountPath : `${x.mountPath}/`));
  const root = m ? m.dir : fs.imageRoot;
  if (!m && write) throw new ExecFailure(1, `${path}: Read-only file system`);
  const rest = m ? p.slice(m.mountPath.length) : p;
  const out = resolve(root, `.${rest.startsWith('/') ? rest : `/${rest}`}`);
  if (out !== resolve(root) && !out.startsWith(resolve(root) + sep))
    throw new ExecFailure(1, `${path}: outside the container`);
  return out;
}

function errText(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

function containerPath(cwd: string, arg: string): string {
  return posix.isAbsolute(arg) ? arg : posix.join(cwd, arg);
}

async function globDir(fs: ContainerFs, cwd: string, arg: string): Promise<string[]> {
  if (!arg.endsWith('/*') || arg.slice(0, -2).includes('*')) return [containerPath(cwd, arg)];
  const dir = containerPath(cwd, arg.slice(0, -2) || '.');
  const names = await readdir(mapPath(fs, dir, false)).catch(() => [] as string[]);
  const hits = names.filter((n) => !n.startsWith('.')).map((n) => posix.join(dir, n));
  return hits.length > 0 ? hits : [containerPath(cwd, arg)]; // sh leaves an unmatched glob as is
}

async function runOne(fs: ContainerFs, cwd: string, argv: string[]): Promise<void> {
  const [cmd, ...args] = argv;
  const flags = args.filter((a) => a.startsWith('-'));
  const ops = args.filter((a) => !a.startsWith('-'));
  switch (cmd) {
    case 'mkdir': {
      if (ops.length === 0) throw new ExecFailure(1, 'mkdir: missing operand');
      for (const d of ops)
        await mkdir(mapPath(fs, containerPath(cwd, d), true), { recursive: flags.includes('-p') }).catch(
          (e: unknown) => {
            throw new ExecFailure(1, `mkdir: can't create directory '${d}': ${errText(e)}`);
          },
        );
      return;
    }
    case 'cp': {
      if (ops.length !== 2) throw new ExecFailure(1, 'cp: expected SOURCE and DEST');
      const [src = '', dst = ''] = ops;
      const recursive = flags.some((f) => /r|R|a/.test(f));
      const from = mapPath(fs, containerPath(cwd, src), false);
      const to = mapPath(fs, containerPath(cwd, dst), true);
      const s = await stat(from).catch(() => undefined);
      if (!s) throw new ExecFailure(1, `cp: can't stat '${src}': No such file or directory`);
      if (s.isDirectory() && !recursive) throw new ExecFailure(1, `cp: omitting directory '${src}'`);
      const target = (await stat(to).catch(() => undefined))?.isDirectory() ? join(to, posix.basename(src)) : to;
      await cp(from, target, { recursive, errorOnExist: false, force: true, verbatimSymlinks: true });
      return;
    }
    case 'mv': {
      if (ops.length !== 2) throw new ExecFailure(1, 'mv: expected SOURCE and DEST');
      const [src = '', dst = ''] = ops;
      const from = mapPath(fs, containerPath(cwd, src), true);
      const to = mapPath(fs, containerPath(cwd, dst), true);
      const target = (await stat(to).catch(() => undefined))?.isDirectory() ? join(to, posix.basename(src)) : to;
      await rename(from, target).catch((e: unknown) => {
        throw new ExecFailure(1, `mv: can't rename '${src}': ${errText(e)}`);
      });
      return;
    }
    case 'rm': {
      const force = flags.some((f) => f.includes('f'));
      const recursive = flags.some((f) => /r|R/.test(f));
      for (const op of ops)
        for (const p of await globDir(fs, cwd, op)) {
          const target = mapPath(fs, p, true);
          if (target === resolve(fs.imageRoot) || fs.mounts.some((m) => resolve(m.dir) === target))
            throw new ExecFailure(1, `rm: refusing to remove '${p}'`);
          await rm(target, { recursive, force });
        }
      return;
    }
    default:
      throw new ExecFailure(127, `exec: "${cmd ?? ''}": executable file not found in $PATH`);
  }
}

/** `sh -c SCRIPT`: simple commands separated by `;`, `&&` or newlines (no quoting, pipes or variables). */
async function runScript(fs: ContainerFs, cwd: string, script: string): Promise<void> {
  for (const part of script.split(/;|&&|\n/)) {
    const argv = part
      .trim()
      .split(/\s+/)
      .filter((x) => x !== '');
    if (argv.length === 0) continue;
    if (/[|<>$`"'\\]/.test(part)) throw new ExecFailure(2, `sh: unsupported syntax in ${JSON.stringify(part.trim())}`);
    await runOne(fs, cwd, argv);
  }
}

/** Runs one container's `command` in `workingDir` (default `/`). */
export async function execContainer(
  fs: ContainerFs,
  command: readonly string[],
  workingDir = '/',
): Promise<ExecResult> {
  try {
    const cwd = posix.normalize(workingDir);
    const st = await stat(mapPath(fs, cwd, false)).catch(() => undefined);
    if (!st?.isDirectory()) throw new ExecFailure(128, `chdir to cwd ("${workingDir}") set in config.json failed`);
    if (command[0] === 'sh' && command[1] === '-c') await runScript(fs, cwd, command[2] ?? '');
    else await runOne(fs, cwd, [...command]);
    return { exitCode: 0, stderr: '' };
  } catch (e) {
    if (e instanceof ExecFailure) return { exitCode: e.exitCode, stderr: e.message };
    return { exitCode: 1, stderr: (e as Error).message };
  }
}
