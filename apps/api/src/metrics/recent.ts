/**
 * A value read at most once per `freshMs`: a stale value is answered at once while one read
 * refreshes it in the background, so a scrape never waits on Redis or on the cluster's IPC round
 * except the very first. Only the first caller sees a failed read; later failures are logged and
 * the last value stands (a scrape then shows counts up to a second or two old, never wrong ones).
 */
export class Recent<T> {
  private value: { data: T; at: number } | undefined;
  private reading: Promise<T> | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly freshMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  async get(): Promise<T> {
    const value = this.value;
    if (value && performance.now() - value.at < this.freshMs) return value.data;
    const refresh = (this.reading ??= this.read()
      .then((data) => {
        this.value = { data, at: performance.now() };
        return data;
      })
      .finally(() => (this.reading = undefined)));
    if (!value) return refresh;
    refresh.catch(this.onError);
    return value.data;
  }
}
