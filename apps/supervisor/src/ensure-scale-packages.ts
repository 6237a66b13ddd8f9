import { ensureForPretest, scaleRequirements } from './system-packages.js';

/**
 * `npm run test:scale`'s pretest: the Debian packages of the cluster, Sentinel and network-namespace
 * tests (scaleRequirements), installed with apt-get as root, before Jest starts.
 */
await ensureForPretest('test:scale', scaleRequirements());
