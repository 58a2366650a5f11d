// Durability for the embedded store without blocking the event loop. The connection commits at
// synchronous=NORMAL: in WAL mode a commit writes its frames to the WAL file and does not wait for
// the disk. This flushes that file with fdatasync on the thread pool instead, so the event loop
// serves requests while the disk works, and one flush covers every commit made before it started.
//
// A flush failure is final: after a failed fdatasync the kernel may have dropped the dirty pages
// it could not write, and a later flush could report success for data that is gone. Every later
// flush reports the same failure; the store acknowledges nothing more until it is reopened, when
// SQLite recovers from what the disk actually holds.
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export class WalFlush {
  private file: Promise<FileHandle> | undefined;
  private running: Promise<void> | undefined;
  /** The flush that starts when the running one ends, shared by everyone who asked meanwhile. */
  private queued: Promise<void> | undefined;
  private failure: unknown;

  /** `database` is the SQLite file; its WAL is `<database>-wal`. */
  constructor(private readonly database: string) {}

  /** Resolves once everything written to the WAL before this call is on stable storage. */
  flush(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    // A running flush may have started before the caller's commit: only a later one covers it.
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.failure === undefined ? this.start() : Promise.reject(this.failure);
      });
    this.queued = queued;
    return queued;
  }

  /** Waits for the flushes in progress, then closes the WAL file handle. */
  async close(): Promise<void> {
    await Promise.allSettled([this.queued, this.running]);
    if (this.file) await (await this.file).close().catch(() => undefined);
    this.file = undefined;
  }

  private start(): Promise<void> {
    const running = this.sync().then(
      () => {
        if (this.running === running) this.running = undefined;
      },
      (err: unknown) => {
        if (this.running === running) this.running = undefined;
        this.failure ??= err;
        throw err;
      },
    );
    this.running = running;
    return running;
  }

  /** One fdatasync of the WAL file. */
  protected async sync(): Promise<void> {
    // SQLite creates the WAL on the first write and keeps that file while any connection is open
    // (it truncates or rewrites it, never replaces it): one handle serves the store's lifetime.
    // The first flush also makes the WAL's directory entry durable.
    if (!this.file) this.file = this.openWal();
    await (await this.file).datasync();
  }

  private async openWal(): Promise<FileHandle> {
    const directory = await open(dirname(this.database), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return open(`${this.database}-wal`, 'r');
  }
}
