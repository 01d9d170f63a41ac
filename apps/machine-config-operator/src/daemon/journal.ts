/**
 * The update journal (a Keelson addition, see README "Differences"): `{from, to, phase, bootId}` written atomically
 * before the first host change of an update and removed when the node reports Done (or the update was rolled
 * back). A daemon restarted after SIGKILL uses it to resume the same update instead of validating a half-applied
 * host against the old config, and to redo a reboot that was requested but never happened (same boot id).
 */
import { promises as fs } from 'node:fs';
import { UPDATE_JOURNAL_PATH } from './constants.js';
import type { HostRoot } from './root.js';
import { atomicWrite } from './writer.js';

/** One journal entry. */
export interface UpdateJournal {
  readonly from: string;
  readonly to: string;
  /** `applying`: host changes in progress; `rebooting`: everything written, reboot requested. */
  readonly phase: 'applying' | 'rebooting';
  /** Boot id when the entry was written. */
  readonly bootId: string;
}

/** Reads the journal (undefined when absent or unreadable: a torn journal cannot exist, writes are atomic). */
export async function readJournal(root: HostRoot): Promise<UpdateJournal | undefined> {
  try {
    const j = JSON.parse(await fs.readFile(root.resolve(UPDATE_JOURNAL_PATH), 'utf8')) as Partial<UpdateJournal>;
    if (
      typeof j.from === 'string' &&
      typeof j.to === 'string' &&
      typeof j.bootId === 'string' &&
      (j.phase === 'applying' || j.phase === 'rebooting')
    ) {
      return { from: j.from, to: j.to, phase: j.phase, bootId: j.bootId };
    }
  } catch {
    // absent
  }
  return undefined;
}

/** Writes the journal atomically. */
export async function writeJournal(root: HostRoot, j: UpdateJournal): Promise<void> {
  await atomicWrite(root.resolve(UPDATE_JOURNAL_PATH), `${JSON.stringify(j)}\n`, { mode: 0o644 });
}

/** Removes the journal. */
export async function clearJournal(root: HostRoot): Promise<void> {
  await fs.rm(root.resolve(UPDATE_JOURNAL_PATH), { force: true });
}
