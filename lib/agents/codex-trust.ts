// Codex runs a non-managed hook only once it is trusted by hash (docs/real-programs.md, fact 3, Codex 0.171, read 2026-11-29):
// `[hooks.state."<real path of hooks.json>:pre_tool_use:<group>:<handler>"] trusted_hash = "sha256:…"` in
// `$CODEX_HOME/config.toml`; the hash is what `codex app-server` reports as `currentHash` in `hooks/list`.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { HashTrust } from './types.js';

/** SHA-256 in hex; node:crypto is loaded on first use, since this module sits on the hook's path (~30 ms). */
const sha256 = (text: string): string =>
  (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(text).digest('hex');

/** JSON with keys sorted at every level and no spaces, as Codex (serde_json over a BTreeMap) writes it. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Codex's hash of one PreToolUse handler: event, the handler (timeout 600 s when unset), and the group's matcher. */
export function codexHookHash(group: Record<string, unknown>, handler: number): string {
  const h = ((group.hooks as Record<string, unknown>[] | undefined) ?? [])[handler] ?? {};
  const identity = {
    event_name: 'pre_tool_use',
    hooks: [{ async: false, command: h.command, timeout: h.timeout ?? 600, type: 'command' }],
    matcher: group.matcher,
  };
  return `sha256:${sha256(canonicalJson(identity))}`;
}

const keyOf = (hooksRealPath: string, group: number, handler: number) => `${hooksRealPath}:pre_tool_use:${group}:${handler}`;

export const codexTrust: HashTrust = {
  howTo: 'open Codex, type /hooks, select the sparehand PreToolUse hook and trust it (or run `sparehand agent install codex --trust`)',
  // `$CODEX_HOME/config.toml`, default ~/.codex (as codex.ts's codexHome).
  file: (b) => join(b.env.CODEX_HOME || join(b.home, '.codex'), 'config.toml'),
  table: (hooksRealPath, group, handler) => ['hooks', 'state', keyOf(hooksRealPath, group, handler)],
  field: 'trusted_hash',
  hash: codexHookHash,
  confirm: {
    args: ['app-server'],
    async currentHash(rpc, where) {
      await rpc.call('initialize', { clientInfo: { name: 'sparehand', title: 'sparehand', version: '0' }, capabilities: { experimentalApi: true } });
      rpc.notify('initialized');
      const list = (await rpc.call('hooks/list', { cwds: [where.cwd] })) as { data?: { hooks?: { key?: string; currentHash?: string }[] }[] };
      const key = keyOf(where.hooksRealPath, where.group, where.handler);
      return (list.data ?? []).flatMap((d) => d.hooks ?? []).find((h) => h.key === key)?.currentHash;
    },
  },
};
