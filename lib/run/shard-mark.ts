// Which split run a shard belongs to: `--shard-of ID:I/N` on each shard's own `sparehand run`, kept in the log
// and shown in `status`, so that the shards of one run are seen together.
import { randomBytes } from 'node:crypto';

export interface ShardMark {
  /** The split run's id, shared by its shards. */
  id: string;
  /** This shard's number, from 1. */
  shard: number;
  /** How many shards the run has. */
  of: number;
}

export const newSplitId = (): string => randomBytes(4).toString('hex');

/** `3fa2c1d0:2/4` → the mark; undefined for anything else. */
export function parseShardMark(text: string): ShardMark | undefined {
  const m = /^([0-9a-f]{8}):([1-9][0-9]{0,2})\/([1-9][0-9]{0,2})$/.exec(text);
  if (!m) return undefined;
  const shard = Number(m[2]);
  const of = Number(m[3]);
  return shard <= of ? { id: m[1] as string, shard, of } : undefined;
}

export const shardMarkText = (m: ShardMark): string => `${m.id}:${m.shard}/${m.of}`;

/** How a shard's command is shown where runs are listed (status): `[split 3fa2c1d0 2/4] npm test -- --shard=2/4`. */
export const shownWithMark = (command: string, m: ShardMark | undefined): string => (m ? `[split ${m.id} ${m.shard}/${m.of}] ${command}` : command);
