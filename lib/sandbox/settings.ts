// A coding tool's sandbox as its user set it up: on or off (and where that is said), and what in it keeps a run of
// sparehand from reaching the workers or writing its own folders. Read from the settings the registry names.
import { isIPv4 } from 'node:net';
import { join } from 'node:path';
import type { InstallBase, SandboxSettings, SandboxSpec } from '../agents/types.js';
import { isSparehandError } from '../errors.js';
import { parseSettings } from '../install/json-target.js';
import { valueAt } from '../install/settings-text.js';
import { parseToml } from '../install/toml-text.js';
import { textOf } from '../read-quietly.js';
import type { SandboxWants } from './wants.js';

export interface SandboxState {
  /** Whether its sandbox is on for shell commands. */
  on: boolean;
  /** Where that is said: `<key> = <value> in <file>`, or `by default: <key> is not set`. */
  why: string;
  /** The user's settings say it (not only the tool's default). */
  explicit: boolean;
  /** What keeps a run inside it from offloading (empty: nothing). */
  blocks: string[];
  /** Set when sparehand cannot tell what it lets through (the tool's settings for that are not known): what to do. */
  unknown?: string;
}

/** Whether sparehand knows the tool's settings that widen its sandbox (and can write them). */
export const canWiden = (s: SandboxSettings | undefined): s is SandboxSettings => Boolean(s && (s.writable || s.network || s.hosts));

/** A key as the tool's documentation writes it: `sandbox.network.allowedDomains`, `[sandbox_workspace_write] network_access`. */
export function keyName(s: Pick<SandboxSettings, 'format'>, key: readonly string[]): string {
  if (s.format === 'toml' && key.length > 1) return `[${key.slice(0, -1).join('.')}] ${key.at(-1)}`;
  return key.join('.');
}

/** A settings file's value (an empty one when it is missing; undefined when it does not parse). */
export function readSettingsFile(s: Pick<SandboxSettings, 'format'>, path: string): Record<string, unknown> | undefined {
  const text = textOf(path);
  try {
    return s.format === 'toml' ? parseToml(path, text) : parseSettings(path, text, true);
  } catch (e) {
    if (isSparehandError(e)) return undefined;
    throw e;
  }
}

const at = (doc: Record<string, unknown> | undefined, key: readonly string[]): unknown => (doc ? valueAt(doc, key) : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The files read for this tool at `base`, user level first: their paths and values. */
function filesOf(s: SandboxSettings, base: InstallBase): { path: string; doc: Record<string, unknown> | undefined }[] {
  const project = base.project;
  const paths = [s.file(base), ...(project ? (s.projectFiles ?? []).map((f) => f({ ...base, project })) : [])];
  return paths.map((path) => ({ path, doc: readSettingsFile(s, path) }));
}

/** `~/x` and `$TMPDIR/x` as paths. */
function expand(entry: string, base: Pick<InstallBase, 'home' | 'env'>): string {
  if (entry === '~' || entry.startsWith('~/')) return join(base.home, entry.slice(1));
  if (entry === '$TMPDIR' || entry.startsWith('$TMPDIR/')) return join(base.env.TMPDIR || '/tmp', entry.slice('$TMPDIR'.length));
  return entry;
}

/** Whether `folder` is, or is inside, one of `entries`. */
export function folderCovered(folder: string, entries: readonly string[], base: Pick<InstallBase, 'home' | 'env'>): boolean {
  return entries.some((e) => {
    const dir = expand(e, base).replace(/\/+$/, '');
    return dir !== '' && (folder === dir || folder.startsWith(`${dir}/`));
  });
}

/** Whether an IPv4 address is in `a.b.c.d/n`. */
function inCidr(ip: string, cidr: string): boolean {
  const [net = '', bits = ''] = cidr.split('/');
  const n = Number(bits);
  if (!isIPv4(net) || !isIPv4(ip) || !Number.isInteger(n) || n < 0 || n > 32) return false;
  const num = (a: string) => a.split('.').reduce((x, o) => (x * 256 + Number(o)) >>> 0, 0);
  const mask = n === 0 ? 0 : (~0 << (32 - n)) >>> 0;
  return (num(ip) & mask) >>> 0 === (num(net) & mask) >>> 0;
}

/** Whether `host:port` matches an allowlist entry: `host`, `host:port`, `*.domain[:port]`, `[v6]:port`, a CIDR. */
export function hostCovered(host: string, port: number, entries: readonly string[]): boolean {
  return entries.some((raw) => {
    const e = raw.trim().toLowerCase();
    if (e.includes('/')) return inCidr(host, e);
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(e) ?? /^([^:]+)(?::(\d+))?$/.exec(e);
    if (!m) return e === host.toLowerCase();
    const [, name = '', p] = m;
    if (p !== undefined && Number(p) !== port) return false;
    const h = host.toLowerCase();
    return name === h || (name.startsWith('*.') && h.endsWith(name.slice(1)));
  });
}

/** The entry --sandbox-access writes for a worker's host. */
export const hostEntry = (s: Pick<SandboxSettings, 'hosts'>, h: { host: string; port: number }): string =>
  s.hosts?.withPort ? (h.host.includes(':') ? `[${h.host}]:${h.port}` : `${h.host}:${h.port}`) : h.host;

/** What the settings say: the switch (the last file that sets it wins) and the lists (added up). */
export function readSandboxSettings(s: SandboxSettings, base: InstallBase) {
  const files = filesOf(s, base);
  let switched: { value: unknown; path: string } | undefined;
  for (const f of files) {
    const v = s.switch ? at(f.doc, s.switch.key) : undefined;
    if (v !== undefined) switched = { value: v, path: f.path };
  }
  return {
    files,
    switched,
    writable: s.writable ? files.flatMap((f) => strings(at(f.doc, s.writable!.key))) : [],
    hosts: s.hosts ? files.flatMap((f) => strings(at(f.doc, s.hosts!.key))) : [],
    network: s.network ? files.some((f) => at(f.doc, s.network!.key) === true) : undefined,
    unreadable: files.filter((f) => f.doc === undefined).map((f) => f.path),
  };
}

/**
 * Whether the tool's sandbox is on and what in it keeps sparehand from offloading: its folders not writable, the
 * network cut, a worker's host not allowed. `tilde` writes paths as people read them.
 */
export function sandboxState(spec: SandboxSpec, base: InstallBase, wants: SandboxWants, tilde: (p: string) => string = (p) => p): SandboxState {
  const s = spec.settings;
  const unknown = spec.manual ?? 'sparehand knows no setting of it';
  if (!s) return { on: spec.onByDefault, why: 'by default: sparehand cannot read where it is switched', explicit: false, blocks: [], unknown };
  const r = readSandboxSettings(s, base);
  const value = r.switched?.value;
  // `false` is a value here (sandbox.enabled = false): only undefined means the setting is not there.
  const off = value !== undefined && s.switch?.off.includes(value as string | boolean) === true;
  const on = value === undefined ? spec.onByDefault : !off;
  const why =
    value === undefined
      ? `by default: ${s.switch ? `${keyName(s, s.switch.key)} is not set` : 'no setting says'}`
      : `${keyName(s, s.switch!.key)} = ${JSON.stringify(value)} in ${tilde(r.switched!.path)}`;
  const blocks: string[] = r.unreadable.map((p) => `${tilde(p)} does not parse`);
  const explicit = value !== undefined;
  if (!canWiden(s)) return { on, why, explicit, blocks, unknown };
  if (s.switch?.fixed?.includes(value as string | boolean)) {
    blocks.push(`${keyName(s, s.switch.key)} = ${JSON.stringify(value)}: nothing can be written and the network is cut, and no setting widens that`);
    return { on, why, explicit, blocks };
  }
  if (s.network && !r.network && wants.hosts.length + wants.unknown.length > 0) blocks.push(`the network is cut (${keyName(s, s.network.key)} is not true)`);
  if (s.hosts) {
    for (const h of wants.hosts) {
      if (!hostCovered(h.host, h.port, r.hosts)) blocks.push(`${h.worker} (${hostEntry(s, h)}) is not in ${keyName(s, s.hosts.key)}`);
    }
  }
  for (const folder of wants.folders) {
    if (!folderCovered(folder, [...r.writable, ...(s.alwaysWritable ?? [])], base)) {
      blocks.push(`${tilde(folder)} is not writable${s.writable ? ` (not in ${keyName(s, s.writable.key)})` : ''}`);
    }
  }
  return { on, why, explicit, blocks };
}
