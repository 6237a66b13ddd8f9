/**
 * For clean-up and listing code: a file or directory that is not there (removed by another
 * process, or never made) is the expected race and yields `fallback`. Anything else (EACCES, EIO,
 * ENOTDIR…) is a real problem and is rethrown; Node's fs errors name the path they failed on.
 */
export function ignoreMissing<T>(fallback: T): (error: unknown) => T {
  return (error: unknown) => {
    if (isMissing(error)) return fallback;
    throw error;
  };
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}
