import { accessSync, constants } from 'node:fs';
import { aptInstallCommand, findExecutable, LIBREOFFICE_PACKAGES } from './system-packages.js';

/** What `npm start` does about the convert stage, and the one line it logs about it. */
export interface ConversionPlan {
  consumers: number;
  log?: { level: 'info' | 'warn'; message: string; install: string };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false; // missing or not executable: the same answer here
  }
}

/** SOFFICE_PATH when given (it must be executable), else `soffice` on PATH or in Debian's directories. */
export function libreOfficePresent(sofficePath: string | undefined, find: (name: string) => string | undefined = (name) => findExecutable(name)): boolean {
  return sofficePath ? isExecutable(sofficePath) : find('soffice') !== undefined;
}

/**
 * Convert consumers to start: CONVERT_CONSUMERS (`wanted`, 1 when unset) when LibreOffice is
 * installed; otherwise 0, said once. `npm start` never installs LibreOffice (hundreds of MB).
 * An explicit count is cut to 0 too, with a warning: a consumer without soffice fails at boot and
 * would only be restarted in a loop.
 */
export function planConversion(options: { present: boolean; wanted: number; explicit: boolean; root: boolean }): ConversionPlan {
  if (options.present) return { consumers: options.wanted };
  const install = aptInstallCommand(LIBREOFFICE_PACKAGES, options.root);
  const message =
    'conversion is off: LibreOffice (soffice) is not installed, so PPT, RTF, ODT and ODP uploads answer 415 converter_unavailable ' +
    '(and DOC files word-extractor cannot read fail); install it and restart to turn conversion on';
  if (options.explicit && options.wanted > 0) return { consumers: 0, log: { level: 'warn', message: `${message} (CONVERT_CONSUMERS=${options.wanted} ignored)`, install } };
  return { consumers: 0, log: { level: 'info', message, install } };
}
