// interrupt.test.ts again, with the worker a podman container reached by the exec transport (`podman exec -i`).
import '../helpers/podman-first.js';
import './interrupt.test.js';
