// Whether a process is alive, for files that name their owner by pid (slot hints, copies' locks, temp files).

/** Whether a process with this pid runs on this machine (one of another user's counts: it is alive). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
