// The pieces --sandbox-access and `agent status` stand on, as data: which entries already cover a worker's host or
// sparehand's folder, and the text edits of a JSON settings file (taking back what was added gives the user's bytes
// back). The TOML editor's tests are test/install/toml-text.test.ts.
import { describe, expect, it } from 'vitest';
import { jsonSettings } from '../../lib/sandbox/edit-settings.js';
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
