import type { Config } from '../config.js';
import type { Storage } from './storage.js';
import { localStorage } from './local-storage.js';

/** The configured back end: S3 when a bucket is named (its SDK is loaded only then). */
export async function createStorage(config: Pick<Config, 'dataDir' | 's3Bucket' | 's3Endpoint' | 's3Region'>): Promise<Storage> {
  if (config.s3Bucket) {
    const { s3Storage } = await import('./s3-storage.js');
    return s3Storage({ bucket: config.s3Bucket, endpoint: config.s3Endpoint, region: config.s3Region });
  }
  return localStorage(`${config.dataDir}/uploads`);
}
