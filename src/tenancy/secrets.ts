// API key secrets: 256 random bits, shown once; only their SHA-256 is stored. A fast hash is
// right here because the secret is high-entropy: there is nothing to brute-force.
import { createHash, randomBytes } from 'node:crypto';

export const generateSecret = (): string => `ck_${randomBytes(32).toString('base64url')}`;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('base64url');

