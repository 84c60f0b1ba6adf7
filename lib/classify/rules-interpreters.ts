// Interpreters whose script or module says what runs: `python -m pytest`, `python manage.py test`,
// `php artisan test`, `php vendor/bin/phpunit`.
import { basename, type Category, heavy, local, NONE, positional, table, type Verdict } from './kinds.js';

const PYTHON = /^(?:python[0-9.]*|pypy[0-9.]*|py)$/;
export const isPython = (name: string): boolean => PYTHON.test(name);

const PY_MODULE = table<Category>({
  pytest: 'tests',
  unittest: 'tests',
  tox: 'tests',
  nox: 'tests',
  mypy: 'types',
  pyright: 'types',
  pylint: 'lint',
  flake8: 'lint',
  build: 'build',
  compileall: 'build',
});
const PY_LOCAL_MODULE = table<Category>({ pip: 'install', venv: 'install', 'http.server': 'server', ensurepip: 'install', pdb: 'interactive' });

export function python(name: string, args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const m = args.indexOf('-m');
  if (m >= 0 && args[m + 1]) {
    const mod = args[m + 1] as string;
    const cat = PY_MODULE.get(mod);
    if (cat) return heavy(`${name} -m ${mod}`, cat);
    const loc = PY_LOCAL_MODULE.get(mod);
    if (loc) return local(`${name} -m ${mod}`, loc);
    const v = classifyArgv([mod, ...args.slice(m + 2)]);
    return v.kind === 'heavy' ? v : NONE;
  }
  const i = positional(args);
  if (i < 0) return args.includes('-c') ? NONE : local(name, 'interactive');
  const script = basename(args[i] as string);
  const sub = args[i + 1];
  if (script === 'manage.py')
    return sub === 'test' ? heavy(`${name} manage.py test`, 'tests') : sub === 'runserver' ? local(`${name} manage.py runserver`, 'server') : NONE;
  if (script === 'setup.py')
    return sub === 'test'
      ? heavy(`${name} setup.py test`, 'tests')
      : sub === 'build' || sub === 'build_ext'
        ? heavy(`${name} setup.py ${sub}`, 'build')
        : sub === 'install' || sub === 'develop'
          ? local(`${name} setup.py ${sub}`, 'install')
          : NONE;
  return NONE;
}

const PHP_VALUE = new Set(['-c', '-d', '-z', '-t']);

/** `php artisan test` (Laravel), `php vendor/bin/phpunit`: the script judged as a program; `php -S` is a server. */
export function php(args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  if (args.includes('-S')) return local('php -S', 'server');
  const i = positional(args, PHP_VALUE);
  if (i < 0) return args.includes('-r') ? NONE : local('php', 'interactive');
  return classifyArgv(args.slice(i));
}
