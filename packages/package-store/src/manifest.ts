/**
 * The manifest types live with the block model in @readpack/reading-package (one definition for
 * parsers, the worker, the API and clients); the store only writes and reads them.
 */
export * from '@readpack/reading-package';
