import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { LocalBlobStore, openStorage, S3BlobStore, type S3Options } from '../src/index.js';
import { startLoopbackS3 } from '../../../test/support/s3rver.js';
import { storageContract } from './storage.contract.js';

storageContract('local directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'readpack-contract-'));
  const storage = await openStorage(dir);
  return {
    storage,
    largeBytes: 5 * 1024 ** 2,
    async corrupt(sha256, bytes) {
      await writeFile((storage.blobs as LocalBlobStore).pathOf(sha256), bytes);
    },
    async close() {
      await rm(dir, { recursive: true, force: true });
    },
  };
});

storageContract('S3 (s3rver on loopback)', async () => {
  const s3 = await startLoopbackS3();
  const dir = await mkdtemp(join(tmpdir(), 'readpack-contract-'));
  // The smallest part S3 allows, so a few megabytes take the multipart path.
  const options: S3Options = {
    bucket: s3.bucket,
    prefix: 'contract/',
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    sse: undefined,
    sseKmsKeyId: undefined,
    multipartThresholdBytes: 5 * 1024 ** 2,
  };
  const storage = await openStorage(dir, options);
  const objects = (storage.blobs as S3BlobStore).objects;
  return {
    storage,
    largeBytes: options.multipartThresholdBytes,
    async corrupt(sha256, bytes) {
      // Same key and the same sha256 metadata, other bytes.
      await objects.client.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: objects.key(`blobs/${sha256.slice(0, 2)}/${sha256}`), Body: bytes, Metadata: { sha256, size: String(bytes.length) } }),
      );
    },
    async close() {
      objects.destroy();
      await s3.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
