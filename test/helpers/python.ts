// Python projects for the tests, offline (there is no PyPI here): pure-Python wheels made with zipfile, and a
// project whose editable install needs no download (an in-tree PEP 517 backend with build_editable).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A pure-Python wheel `NAME-1.0-py3-none-any.whl` in `dir` holding one module. */
export function wheel(dir: string, name: string, source: string): void {
  const script = `
import sys, zipfile
d, name, src = sys.argv[1:4]
info = f"{name}-1.0.dist-info"
with zipfile.ZipFile(f"{d}/{name}-1.0-py3-none-any.whl", "w") as z:
    z.writestr(f"{name}.py", src)
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: sparehand-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(f"{info}/RECORD", f"{name}.py,,\\n{info}/METADATA,,\\n{info}/WHEEL,,\\n{info}/RECORD,,\\n")
`;
  execFileSync('python3', ['-c', script, dir, name, source]);
}

const BACKEND = `import os, zipfile
NAME, VERSION = "demo", "0.1.0"
DIST = f"{NAME}-{VERSION}.dist-info"
META = f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n"
def get_requires_for_build_editable(config_settings=None): return []
def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    os.makedirs(os.path.join(metadata_directory, DIST), exist_ok=True)
    with open(os.path.join(metadata_directory, DIST, "METADATA"), "w") as f: f.write(META)
    return DIST
def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    files = {f"__editable__.{NAME}.pth": os.path.abspath("src") + "\\n", f"{DIST}/METADATA": META,
             f"{DIST}/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for n, d in files.items(): z.writestr(n, d)
        z.writestr(f"{DIST}/RECORD", "".join(f"{n},,\\n" for n in files) + f"{DIST}/RECORD,,\\n")
    return name
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None): raise RuntimeError("editable only")
`;

/** The files of a project `demo` (src layout) that `pip install -e .` installs with no index. */
export function editableProject(dir: string): void {
  mkdirSync(join(dir, 'src', 'demo'), { recursive: true });
  writeFileSync(
    join(dir, 'pyproject.toml'),
    '[build-system]\nrequires = []\nbuild-backend = "editable_backend"\nbackend-path = ["."]\n\n[project]\nname = "demo"\nversion = "0.1.0"\n',
  );
  writeFileSync(join(dir, 'editable_backend.py'), BACKEND);
  writeFileSync(join(dir, 'src', 'demo', '__init__.py'), 'def hello():\n    return "hello"\n');
}

/** `python3 -m venv .venv` in `dir`, then `pip install ARGS` into it with no index (wheels from `links`). */
export function venvWith(dir: string, links: string, args: readonly string[]): void {
  execFileSync('python3', ['-m', 'venv', '.venv'], { cwd: dir });
  const env = { ...process.env, PIP_NO_INDEX: '1', PIP_FIND_LINKS: links, PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  execFileSync(join(dir, '.venv', 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', ...args], { cwd: dir, env, stdio: 'pipe' });
}
