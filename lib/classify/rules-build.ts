// Build systems that take targets, goals or tasks: make, Maven, Gradle; and CMake, Ninja and CTest, which
// work in a build folder the configure step made (see "C and C++ build trees" in docs/classify.md).
import { heavy, light, local, NONE, positional, type Verdict } from './kinds.js';

const MAKE_LOCAL = new Set([
  'install',
  'uninstall',
  'deploy',
  'publish',
  'release',
  'push',
  'run',
  'serve',
  'server',
  'dev',
  'watch',
  'start',
  'up',
  'down',
  'shell',
  'docker',
]);
const MAKE_VALUE = new Set(['-C', '-f', '--file', '--makefile', '-j', '--jobs', '-l', '-o', '-W', '-I', '--directory']);
const MVN_VALUE = new Set([
  '-f',
  '--file',
  '-s',
  '--settings',
  '-gs',
  '-pl',
  '--projects',
  '-P',
  '--activate-profiles',
  '-T',
  '--threads',
  '-rf',
  '--resume-from',
  '-l',
  '--log-file',
  '-D',
  '-t',
  '--toolchains',
  '-b',
  '--builder',
]);
const MVN_HEAVY = new Set(['test', 'package', 'verify', 'compile', 'test-compile', 'integration-test', 'validate', 'site']);
const MVN_LOCAL = new Set(['install', 'deploy', 'release', 'site-deploy']);
const GRADLE_VALUE = new Set([
  '-x',
  '--exclude-task',
  '-p',
  '--project-dir',
  '-b',
  '--build-file',
  '-c',
  '-I',
  '--init-script',
  '--console',
  '-g',
  '--gradle-user-home',
  '--tests',
  '--warning-mode',
  '-D',
  '-P',
]);
const GRADLE_LOCAL = /^(?:run|bootRun|publish|install|upload|deploy|release|connected|appRun|jettyRun|tomcatRun)/;
const GRADLE_HEAVY = /^(?:build|test|check|assemble|compile|lint|jar|war|bootJar|detekt|ktlint|spotless|jacoco|javadoc|verify)/;

function make(name: string, args: readonly string[]): Verdict {
  if (args.includes('-n') || args.includes('--dry-run') || args.includes('--just-print')) return light(`${name} -n`);
  const targets: string[] = [];
  for (let i = positional(args, MAKE_VALUE); i >= 0; i = positional(args, MAKE_VALUE, i + 1)) {
    const t = args[i] as string;
    if (!t.includes('=')) targets.push(t);
  }
  const bad = targets.find((t) => MAKE_LOCAL.has(t) || t.startsWith('install') || t.startsWith('deploy'));
  if (bad) return local(`${name} ${bad}`, bad === 'run' ? 'run' : bad.startsWith('install') || bad === 'uninstall' ? 'install' : 'world');
  if (targets.length > 0 && targets.every((t) => t === 'clean' || t === 'distclean' || t === 'help')) return local(`${name} ${targets.join(' ')}`, 'clean');
  return heavy(targets.length ? `${name} ${targets[0]}` : name, 'build');
}

function maven(name: string, args: readonly string[]): Verdict {
  const goals: string[] = [];
  for (let i = positional(args, MVN_VALUE); i >= 0; i = positional(args, MVN_VALUE, i + 1)) goals.push(args[i] as string);
  const bad = goals.find(
    (g) => MVN_LOCAL.has(g) || g.endsWith(':run') || g.endsWith(':dev') || g.startsWith('exec:') || g.startsWith('release:') || g.endsWith(':deploy'),
  );
  if (bad)
    return local(`${name} ${bad}`, bad === 'install' ? 'install' : bad.startsWith('exec:') || bad.endsWith(':run') || bad.endsWith(':dev') ? 'run' : 'world');
  const good = goals.find((g) => MVN_HEAVY.has(g) || g.endsWith(':check') || g.endsWith(':test'));
  if (good) return heavy(`${name} ${good}`, good.includes('test') ? 'tests' : 'build');
  return goals.length > 0 && goals.every((g) => g === 'clean') ? local(`${name} clean`, 'clean') : NONE;
}

function gradle(name: string, args: readonly string[]): Verdict {
  if (args.includes('-t') || args.includes('--continuous')) return local(`${name} --continuous`, 'watch');
  const tasks: string[] = [];
  for (let i = positional(args, GRADLE_VALUE); i >= 0; i = positional(args, GRADLE_VALUE, i + 1)) {
    const t = args[i] as string;
    tasks.push(t.slice(t.lastIndexOf(':') + 1));
  }
  const bad = tasks.find((t) => GRADLE_LOCAL.test(t));
  if (bad) return local(`${name} ${bad}`, bad.startsWith('run') || bad.endsWith('Run') ? 'run' : bad.startsWith('install') ? 'install' : 'world');
  const good = tasks.find((t) => GRADLE_HEAVY.test(t));
  if (good) return heavy(`${name} ${good}`, good.startsWith('test') || good === 'check' ? 'tests' : 'build');
  return tasks.length > 0 && tasks.every((t) => t === 'clean') ? local(`${name} clean`, 'clean') : NONE;
}

// CMake's configure step writes this machine's absolute paths into the build folder (CMakeCache.txt,
// build.ninja, CTestTestfile.cmake), and that folder is ignored, so it is not sent: on a worker `cmake --build`,
// `ninja` and `ctest` find no build tree, or one they refuse. Configuring there too would bring back a tree
// recorded with the worker's paths, which breaks the next build here. So they stay here; a clean stays here
// whatever its build system (it must delete files here).
const NINJA_VALUE = new Set(['-C', '-f', '-j', '-k', '-l', '-d', '-t', '-w']);

function ninja(args: readonly string[]): Verdict {
  const tool = args.indexOf('-t');
  if (tool >= 0) return args[tool + 1] === 'clean' ? local('ninja -t clean', 'clean') : light(`ninja -t ${args[tool + 1] ?? ''}`.trim());
  if (args.includes('-n')) return light('ninja -n');
  const targets: string[] = [];
  for (let i = positional(args, NINJA_VALUE); i >= 0; i = positional(args, NINJA_VALUE, i + 1)) targets.push(args[i] as string);
  return targets.includes('clean') ? local('ninja clean', 'clean') : local('ninja', 'buildTree');
}

function cmake(args: readonly string[]): Verdict {
  if (!args.includes('--build') && !args.some((a) => a.startsWith('--build=')) && !args.includes('--workflow')) return local('cmake', 'configure');
  const targets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--target' || a === '-t') {
      for (let j = i + 1; j < args.length && !(args[j] as string).startsWith('-'); j++) targets.push(args[j] as string);
    } else if (a.startsWith('--target=')) targets.push(a.slice('--target='.length));
  }
  return targets.includes('clean') ? local('cmake --build --target clean', 'clean') : local('cmake --build', 'buildTree');
}

/** The verdict for make, Maven, Gradle, CMake, Ninja and CTest; undefined for any other program. */
export function buildSystem(name: string, args: readonly string[]): Verdict | undefined {
  switch (name) {
    case 'make':
    case 'gmake':
      return make(name, args);
    case 'mvn':
    case 'mvnw':
      return maven(name, args);
    case 'gradle':
    case 'gradlew':
      return gradle(name, args);
    case 'cmake':
      return cmake(args);
    case 'ninja':
      return ninja(args);
    case 'ctest':
      return local('ctest', 'buildTree');
    default:
      return undefined;
  }
}
