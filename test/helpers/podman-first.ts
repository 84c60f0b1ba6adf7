// Imported first by a test file: the file's shared worker (worker-env.ts sharedWorker) is a podman container
// reached by the exec transport (`podman exec -i`), not an sshd: the same tests, over the other transport.
process.env.SPAREHAND_TEST_WORKER = 'podman';
