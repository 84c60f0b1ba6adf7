// One change the command made on the worker, as the worker's report says it (lib/remote/worker/report.pl) and as
// report-reader.ts checked it: what decide.ts judges and apply.ts writes.

export type ChangeOp = 'C' | 'M' | 'T' | 'D';
/** f file, l link, d folder, s special (a FIFO, socket or device: named, never made here). */
export type EntryType = 'f' | 'l' | 'd' | 's';

export interface Change {
  /** Its place in the report (what `want` asks for). */
  index: number;
  /** C created, M content changed, T only mtime or mode changed, D deleted. */
  op: ChangeOp;
  type: EntryType;
  mode: number;
  /** Seconds since the epoch, as on the worker (to a double's precision). */
  mtime: number;
  size: number;
  /** md5 of the content (a link's target) before the command; undefined for a created path. */
  base: string | undefined;
  /** md5 of the content (a link's target) after the command; undefined for a deletion, a folder or content not here. */
  hash: string | undefined;
  path: string;
  /** A link's target. */
  target: string;
  /** The file holding the content here, for files created or changed. */
  staged?: string;
  /** Why this change cannot be applied as sent (content that changed while it was sent, content not kept here). */
  problem?: string;
}

/** A change's mtime as the fs calls take it: Node takes a negative number of seconds for now, a Date for what it is. */
export const fileTime = (mtime: number): number | Date => (mtime < 0 ? new Date(mtime * 1000) : mtime);
