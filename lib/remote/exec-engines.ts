// The exec command of a container or pod worker (`worker add --podman CTR`, `--docker`, `--kubectl`, `--exec`): the
// argv after which the command's words follow, with the command's stdin and stdout as the program's (lib/remote/transport.ts).
import { parse } from 'shell-quote';
import { SparehandError } from '../errors.js';

export interface ExecChoice {
  exec?: string | undefined;
  docker?: string | undefined;
  podman?: string | undefined;
  kubectl?: string | undefined;
  namespace?: string | undefined;
  container?: string | undefined;
  context?: string | undefined;
  /** A pool of pods (lib/remote/pools.ts) rather than one. */
  kubernetes?: boolean | undefined;
  selector?: string | undefined;
}

/** `--kubernetes --namespace NS --selector LABELS [--container C] [--context CTX]`: the pool; undefined without --kubernetes. */
export function kubernetesPool(o: ExecChoice): { namespace: string; selector: string; container?: string; context?: string } | undefined {
  if (!o.kubernetes) {
    if (o.selector !== undefined) throw new SparehandError('USAGE', '--selector goes with --kubernetes');
    return undefined;
  }
  if ([o.exec, o.docker, o.podman, o.kubectl].some((v) => v !== undefined))
    throw new SparehandError('USAGE', '--kubernetes is a pool of pods: not with --exec, --docker, --podman or --kubectl');
  if (o.namespace === undefined || o.selector === undefined) {
    throw new SparehandError('USAGE', '--kubernetes needs --namespace and --selector', {
      hint: 'e.g. --kubernetes --namespace ci --selector app=sparehand-worker',
    });
  }
  return {
    namespace: o.namespace,
    selector: o.selector,
    ...(o.container === undefined ? {} : { container: o.container }),
    ...(o.context === undefined ? {} : { context: o.context }),
  };
}

/** `--exec` as words: a command line, not a shell script (no `;`, `|`, `$(…)`: the engine runs the words after it). */
function words(line: string): string[] {
  const parsed = parse(line);
  const out = parsed.filter((w): w is string => typeof w === 'string');
  if (out.length !== parsed.length || out.length === 0) {
    throw new SparehandError('USAGE', `--exec ${JSON.stringify(line)}: give the program and its arguments only (no shell operators)`, {
      hint: "e.g. --exec 'podman exec -i build'; the command sparehand runs goes after these words",
    });
  }
  return out;
}

/** A name given to an engine: the engine takes it as an argument, so it must not read as an option. */
function name(flag: string, v: string): string {
  if (v === '' || v.startsWith('-')) throw new SparehandError('USAGE', `${flag} ${JSON.stringify(v)}: a container or pod name must not start with "-"`);
  return v;
}

/** The exec argv the options choose; undefined when none was given (an ssh worker). */
export function execArgv(o: ExecChoice): string[] | undefined {
  const given = [o.exec, o.docker, o.podman, o.kubectl].filter((v) => v !== undefined);
  if (given.length > 1) throw new SparehandError('USAGE', 'give one of --exec, --docker, --podman and --kubectl');
  if (o.kubectl === undefined && (o.namespace ?? o.container ?? o.context) !== undefined) {
    throw new SparehandError('USAGE', '--namespace, --container and --context go with --kubectl or --kubernetes');
  }
  if (o.exec !== undefined) return words(o.exec);
  if (o.docker !== undefined) return ['docker', 'exec', '-i', name('--docker', o.docker)];
  if (o.podman !== undefined) return ['podman', 'exec', '-i', name('--podman', o.podman)];
  if (o.kubectl === undefined) return undefined;
  return [
    'kubectl',
    ...(o.context === undefined ? [] : ['--context', o.context]),
    'exec',
    '-i',
    ...(o.namespace === undefined ? [] : ['-n', o.namespace]),
    name('--kubectl', o.kubectl),
    ...(o.container === undefined ? [] : ['-c', o.container]),
    '--',
  ];
}
