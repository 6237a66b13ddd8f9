import { ensureSystemPackages, scaleRequirements } from './system-packages.js';

/**
 * `npm run test:scale`'s pretest: the Debian packages of the cluster, Sentinel and network-namespace
 * tests (scaleRequirements), installed with apt-get as root, before Jest starts.
 */
const result = await ensureSystemPackages(scaleRequirements(), { log: (line) => console.log(line) });
if (!result.ok) {
  console.error(`test:scale needs system packages (${result.reason}):`);
  for (const requirement of result.missing) console.error(`  ${requirement.packages.join(' ')}: ${requirement.purpose}`);
  console.error('Install them with:');
  console.error(result.command);
  process.exitCode = 1;
} else if (result.installed.length > 0) {
  console.log(`installed ${result.installed.join(' ')}`);
}
