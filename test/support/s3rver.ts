import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { Config } from '@readpack/config';

export interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  /** The S3_* variables of a deployment using this server. */
  env: Record<string, string>;
  /** The endpoint on one of `alsoOn`'s addresses (same port). */
  endpointOn(address: string): string;
  stop(): Promise<void>;
}

/**
 * An S3-compatible server in this process on a free loopback port (s3rver, objects on disk in a
 * temporary directory), with one bucket. s3rver accepts its own fixed key pair, given to the SDK
 * through the environment, i.e. the SDK's ordinary credential chain. `alsoOn`: more local
 * addresses to serve on, same port (the host ends of network-namespace links), and no others.
 */
export async function startLoopbackS3(bucket = 'readpack-test', alsoOn: readonly string[] = []): Promise<LoopbackS3> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const endpoint = `http://127.0.0.1:${port}`;
  // One HTTP server, several listening sockets: each hands its connections to s3rver's server
  // (an http.Server serves any socket emitted as 'connection'), rather than binding 0.0.0.0.
  const listeners: Server[] = [];
  for (const address of alsoOn) {
    const listener = createServer((socket) => server.httpServer!.emit('connection', socket));
    listeners.push(listener);
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(port, address, () => resolve());
    });
  }
  return {
    endpoint,
    bucket,
    env: { STORAGE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true' },
    endpointOn(address: string) {
      if (!alsoOn.includes(address)) throw new Error(`s3rver does not listen on ${address}`);
      return `http://${address}:${port}`;
    },
    async stop() {
      await Promise.all(listeners.map((l) => new Promise<void>((resolve) => l.close(() => resolve()))));
      // Clients keep connections alive; close() alone would wait for them.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The STORAGE/S3_* variables of a configuration, for service processes a test spawns ({} locally). */
export function storageEnv(config: Config): Record<string, string> {
  const s3 = config.storage.s3;
  if (!s3) return {};
  return {
    STORAGE: 's3',
    S3_BUCKET: s3.bucket,
    S3_PREFIX: s3.prefix,
    S3_REGION: s3.region,
    ...(s3.endpoint === undefined ? {} : { S3_ENDPOINT: s3.endpoint }),
    S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
  };
}
