// The pieces --sandbox-access and `agent status` stand on, as data: which entries already cover a worker's host or
// sparehand's folder, and the text edits of a tool's settings (a TOML list where it is written, with its comment;
// taking back what was added gives the user's bytes back; a layout it cannot edit is refused, not guessed).
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { jsonSettings, tomlSettings } from '../../lib/sandbox/edit-settings.js';
import { folderCovered, hostCovered } from '../../lib/sandbox/settings.js';

describe('what an allowlist entry covers', () => {
  it('host, host:port, *.domain, [v6]:port, a CIDR; an entry without a port matches every port', () => {
    expect(hostCovered('192.168.1.7', 22, ['192.168.1.7'])).toBe(true);
    expect(hostCovered('192.168.1.7', 22, ['192.168.1.7:22'])).toBe(true);
    expect(hostCovered('192.168.1.7', 2222, ['192.168.1.7:22'])).toBe(false);
    expect(hostCovered('box.lan', 22, ['*.lan'])).toBe(true);
    expect(hostCovered('lan', 22, ['*.lan'])).toBe(false);
    expect(hostCovered('fe80::1', 2200, ['[fe80::1]:2200'])).toBe(true);
    expect(hostCovered('10.1.2.3', 22, ['10.0.0.0/8'])).toBe(true);
    expect(hostCovered('11.1.2.3', 22, ['10.0.0.0/8'])).toBe(false);
    expect(hostCovered('100.64.0.9', 22, ['github.com', '100.64.0.0/10'])).toBe(true);
  });

  it('a folder is covered by itself or a folder above it; ~/ and $TMPDIR are expanded', () => {
    const base = { home: '/home/me', env: { TMPDIR: '/var/folders/x/T' } };
    expect(folderCovered('/home/me/.cache/sparehand', ['~/.cache'], base)).toBe(true);
    expect(folderCovered('/home/me/.cache/sparehand', ['/home/me/.cache/sparehand/'], base)).toBe(true);
    expect(folderCovered('/home/me/.cache/sparehandx', ['/home/me/.cache/sparehand'], base)).toBe(false);
    expect(folderCovered('/var/folders/x/T/s', ['$TMPDIR'], base)).toBe(true);
  });
});

describe('editing a TOML settings file', () => {
  const key = ['sandbox_workspace_write', 'writable_roots'];

  it('adds to a list where it is written (a list over several lines too), and taking it out gives the bytes back', () => {
    const text = '[sandbox_workspace_write]\nwritable_roots = [\n  "/a", # mine\n  "/b",\n]\nnetwork_access = false\n';
    const doc = tomlSettings('c.toml', text);
    doc.add(key, ['/s1', '/s2']);
    expect((parse(doc.text()) as any).sandbox_workspace_write.writable_roots).toEqual(['/a', '/b', '/s1', '/s2']);
    expect(doc.text()).toContain('"/a", # mine');
    doc.take(key, ['/s1', '/s2']);
    expect(doc.text()).toBe(text);
  });

  it('a table it made goes with what it put in it; a table written another way is refused', () => {
    const doc = tomlSettings('c.toml', 'model = "m"\n');
    doc.add(key, ['/s']);
    doc.set(['sandbox_workspace_write', 'network_access'], true);
    expect(doc.text()).toBe('model = "m"\n\n[sandbox_workspace_write]\nwritable_roots = ["/s"]\nnetwork_access = true\n');
    doc.take(key, ['/s']);
    doc.prune(key, 1);
    doc.remove(['sandbox_workspace_write', 'network_access']);
    doc.prune(['sandbox_workspace_write', 'network_access'], 1);
    expect(doc.text()).toBe('model = "m"\n');
    expect(() =>
      tomlSettings('c.toml', 'sandbox_workspace_write = { network_access = false }\n').set(['sandbox_workspace_write', 'network_access'], true),
    ).toThrow(/c\.toml: sandbox_workspace_write is not written as a \[sandbox_workspace_write\] table; it was left untouched/);
  });
});

describe('editing a JSON settings file', () => {
  it('adds only its entries, formatted like the file, and taking them out gives the bytes back', () => {
    const text = '{\n    "sandbox": {\n        "enabled": true,\n        "network": {\n            "allowedDomains": ["github.com"]\n        }\n    }\n}\n';
    const doc = jsonSettings('s.json', text);
    doc.add(['sandbox', 'network', 'allowedDomains'], ['10.0.0.9:22']);
    doc.add(['sandbox', 'filesystem', 'allowWrite'], ['/home/me/.cache/sparehand']);
    expect(JSON.parse(doc.text()).sandbox).toEqual({
      enabled: true,
      network: { allowedDomains: ['github.com', '10.0.0.9:22'] },
      filesystem: { allowWrite: ['/home/me/.cache/sparehand'] },
    });
    doc.take(['sandbox', 'filesystem', 'allowWrite'], ['/home/me/.cache/sparehand']);
    doc.prune(['sandbox', 'filesystem', 'allowWrite'], 2);
    doc.take(['sandbox', 'network', 'allowedDomains'], ['10.0.0.9:22']);
    expect(doc.text()).toBe(text);
  });
});
