import type { Readable } from 'node:stream';
import type { StreamedManifest } from './json-pieces.js';
import type { PackageManifest } from './manifest.js';
import type { S3Config } from '@readpack/config';

/** A spooled stream: its temporary file, and its bytes when it was no larger than asked to keep. */
export type SpooledBlob = BlobInfo & { path: string; bytes?: Buffer };

export interface BlobInfo {
  sha256: string;
  size: number;
}

/** One written package: its id and the manifest's size and sha256 (what the job record keeps). */
export interface WrittenPackage {
  packageId: string;
  size: number;
  sha256: string;
}

/**
 * What the asset route and the janitor need, without the manifest: whose package it is, the
 * upload it was made from and which assets it holds. A manifest can be megabytes of text (a
 * 10,000-page PDF's is ~170 MB); reading and parsing it only to refuse another tenant made
 * refusals slow (a timing oracle, and a way to slow the owner's polls), and the janitor's mark
 * pass read every package whole.
 */
export interface PackageIndex {
  tenant: string;
  /** The sha256 of the upload (the manifest's `source.sha256`). */
  source: string;
  assets: PackageManifest['assets'];
}

/**
 * Settings of S3-compatible object storage: the configuration's own type (packages/config builds it
 * from the S3_* variables), so the two cannot drift apart.
 */
export type S3Options = S3Config;

/**
 * Where a blob store lives, as plain data: worker threads (the render pool) open their own store
 * from it, since neither a directory handle nor an S3 client crosses a thread boundary.
 */
export type BlobLocation = { kind: 'local'; root: string } | { kind: 's3'; s3: S3Options; spoolDir: string };

/**
 * Content-addressed, immutable blobs. Contract (storage.contract.ts runs it on every
 * implementation): a write is atomic (a reader sees all of an object or none of it) and
 * idempotent (writing content already stored is a no-op); reads verify the content against its
 * sha256; a missing blob reads as an error whose `code` is ENOENT (see isMissing).
 */
export interface BlobStore {
  /** Where the blobs are, for messages (a directory or an `s3://` URL). */
  readonly root: string;
  readonly location: BlobLocation;
  has(sha256: string): Promise<boolean>;
  size(sha256: string): Promise<number | undefined>;
  putBuffer(data: Uint8Array): Promise<BlobInfo>;
  /** Streams into the store while hashing; see `spool` for the limit. */
  putStream(source: Readable, limitBytes?: number): Promise<BlobInfo>;
  /**
   * Writes a stream to a local temporary file of this process while hashing it, without storing it
   * yet (an upload is inspected before it is accepted). Past `limitBytes` it fails with
   * BlobTooLargeError and leaves nothing behind. Content of at most `keepBytes` (default 0) comes
   * back in memory too, so that inspecting a small upload need not read its file again.
   */
  spool(source: Readable, limitBytes?: number, keepBytes?: number): Promise<SpooledBlob>;
  /** Takes a spooled file into the store under its hash; the spooled file is gone afterwards. */
  adopt(path: string, sha256: string): Promise<void>;
  /** A stream of the blob; a missing blob or a checksum mismatch is an error on the stream. */
  read(sha256: string): Readable;
  readBuffer(sha256: string): Promise<Buffer>;
  /** Writes the blob to a local file at `path` (created whole, through a temporary name). */
  copyTo(sha256: string, path: string): Promise<void>;
  /**
   * Runs `use` with a local file holding the blob (parsers and renderers need a path). Local: the
   * stored file itself; S3: a download into this process's temporary directory, deleted when the
   * last concurrent user of that blob in this store is done, whether `use` succeeded or not.
   */
  withLocalFile<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T>;
  /** Every stored blob with its write time (for the janitor's mark and sweep). */
  list(): AsyncGenerator<{ sha256: string; modifiedAt: number }>;
  delete(sha256: string): Promise<void>;
  /**
   * A URL that serves the blob directly, valid `ttlSeconds`, with the response headers given.
   * Only stores reachable by URL have it (S3); callers decide access before asking.
   */
  signedUrl?(sha256: string, options: SignedUrlOptions): Promise<string>;
}

export interface SignedUrlOptions {
  ttlSeconds: number;
  contentType: string;
  contentDisposition: string;
  cacheControl: string;
}

/**
 * Reading packages: a manifest and its index (tenant, upload, assets), whose assets are blobs. Written
 * assets first, then index, then manifest, each atomically; deleted index first.
 */
export interface PackageRepository {
  /** Where a package is, for messages (a path or an `s3://` URL). */
  pathOf(packageId: string): string;
  write(manifest: PackageManifest | StreamedManifest): Promise<WrittenPackage>;
  /** The manifest, or null when no such package exists (expired or never written). */
  read(packageId: string): Promise<PackageManifest | null>;
  /** The index alone, or null when the package does not exist. */
  readIndex(packageId: string): Promise<PackageIndex | null>;
  /** Every package with a manifest or an index (an index alone is a write that died half-way). */
  list(): Promise<string[]>;
  /** When the package was written (ms): its manifest, else its index; undefined if neither exists. */
  writtenAt(packageId: string): Promise<number | undefined>;
  delete(packageId: string): Promise<void>;
}

/** What every process opens once: blobs, packages, and the local directories it cleans. */
export interface Storage {
  kind: 'local' | 's3';
  blobs: BlobStore;
  packages: PackageRepository;
  /** Uploads in progress (local to this process with S3; next to the blobs locally, for a rename). */
  spoolDir: string;
  /** Where interrupted writes may leave temporary files (the janitor clears old ones). */
  tmpDirs: string[];
}

export const SHA256 = /^[0-9a-f]{64}$/;
export const PACKAGE_ID = /^[A-Za-z0-9_-]{8,128}$/;

export function checkSha256(sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return sha256;
}

export function checkPackageId(packageId: string): string {
  if (!PACKAGE_ID.test(packageId)) throw new Error(`invalid package id: ${packageId}`);
  return packageId;
}

/** Content that does not match the sha256 it was stored under: corruption, never served. */
export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
  constructor(
    readonly where: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`${where}: content has sha256 ${actual}, expected ${expected}`);
  }
}

/** A missing object, with the ENOENT code of a missing file so one `isMissing` serves both stores. */
export class MissingObjectError extends Error {
  override readonly name = 'MissingObjectError';
  readonly code = 'ENOENT';
  constructor(readonly path: string) {
    super(`no such object: ${path}`);
  }
}
