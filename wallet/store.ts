// The wallet's file: the holder key its credentials are bound to and the credentials as issued,
// in JSON, for its owner only (mode 0600). A file others may read is refused rather than used: it
// holds a private key. Each write goes to a new file renamed over the old one, so a crash leaves
// the old file or the new one, never half of one.
//
//   { "version": 1, "holder_key": { private JWK }, "credentials": [ { "credential": "<sd-jwt vc>",
//     "issuer": "...", "vct": "...", "received_at": "<ISO 8601>" }, { "credential": "<base64url
//     IssuerSigned>", "format": "mso_mdoc", "doctype": "...", "issuer": "...", "received_at": "..." } ] }
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { exportWalletKey, importWalletKey, newWalletKey, type WalletKey } from './keys.js';

const StoredCredential = t.union([
  t.intersection([t.type({ credential: t.string, issuer: t.string, vct: t.string, received_at: t.string }), t.partial({ format: t.literal('dc+sd-jwt') })]),
  t.type({ credential: t.string, format: t.literal('mso_mdoc'), doctype: t.string, issuer: t.string, received_at: t.string }),
]);
export type StoredCredential = t.TypeOf<typeof StoredCredential>;

const Content = t.type({
  version: t.literal(1),
  holder_key: t.record(t.string, t.unknown),
  credentials: t.array(StoredCredential),
});

export class WalletFile {
  private constructor(
    readonly path: string,
    readonly holderKey: WalletKey,
    private readonly holderJwk: JWK,
    private stored: readonly StoredCredential[],
  ) {}

  /** The wallet kept at `path`; a new one (with a new holder key, written on the first add) when there is none. */
  static async open(path: string): Promise<WalletFile> {
    const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (text === undefined) {
      const key = await newWalletKey();
      return new WalletFile(path, key, await exportWalletKey(key), []);
    }
    const mode = (await stat(path)).mode & 0o777;
    if ((mode & 0o077) !== 0) throw new Error(`${path} may be read by others (mode ${mode.toString(8)}); it holds a private key: chmod 600 it`);
    const content = Content.decode(JSON.parse(text));
    if (isLeft(content)) throw new Error(`${path} is not a wallet file`);
    const jwk = content.right.holder_key as JWK;
    return new WalletFile(path, await importWalletKey(jwk), jwk, content.right.credentials);
  }

  get credentials(): readonly StoredCredential[] {
    return this.stored;
  }

  async add(credential: StoredCredential): Promise<void> {
    const content = { version: 1, holder_key: this.holderJwk, credentials: [...this.stored, credential] };
    const temporary = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await rename(temporary, this.path);
    } finally {
      await rm(temporary, { force: true });
    }
    this.stored = content.credentials;
  }
}
