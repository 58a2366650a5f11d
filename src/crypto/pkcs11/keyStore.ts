// KEY_STORE=pkcs11: the signing keys and the KEK inside a PKCS#11 token, the certificates PEM
// files. The start checks everything and refuses with one line per problem (module, token, PIN,
// each key, each certificate against its token key); the PIN is in none of them.
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../log.js';
import { certificatesFromPem } from '../certificates.js';
import { CertificateKeyMismatch, certifiedSigner, type SigningIdentity } from '../signingIdentity.js';
import type { KeyStore, SigningRole } from '../keyStore.js';
import { derivationRoot, tokenKek } from './kek.js';
import { ecPublicJwk, keyProblem, tokenSigner } from './keys.js';
import type { JWK } from 'jose';
import { tokenTenantKeys } from './tenantKeys.js';
import { openToken, TokenProblem, type Token, type TokenOptions } from './token.js';

/** What the token store needs, and the variable each setting comes from (for messages). */
export interface Pkcs11Settings {
  readonly token: TokenOptions;
  readonly roles: readonly {
    readonly role: SigningRole;
    readonly label: string;
    readonly labelVariable: string;
    readonly certificateFile: string;
    readonly certificateVariable: string;
  }[];
  readonly kekLabel: string;
  readonly kekLabelVariable: string;
}

type RoleSettings = Pkcs11Settings['roles'][number];

const identityOf = async (
  token: Token,
  role: RoleSettings,
  publicJwk: JWK,
): Promise<SigningIdentity | string> => {
  let pem: string;
  try {
    pem = await readFile(role.certificateFile, 'utf8');
  } catch (err) {
    return `${role.certificateVariable}: ${role.certificateFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  try {
    const chain = certificatesFromPem(pem);
    return await certifiedSigner(chain, tokenSigner(token, role.label, publicJwk));
  } catch (err) {
    const why = err instanceof CertificateKeyMismatch ? `the leaf's public key is not the token key ${JSON.stringify(role.label)} (${role.labelVariable})` : (err as Error).message;
    return `${role.certificateVariable}: ${why}`;
  }
};

export const openPkcs11KeyStore = async (settings: Pkcs11Settings, log: Logger): Promise<KeyStore> => {
  const token = openToken(settings.token);
  try {
    const problems: string[] = [];
    const publicKeys = new Map<SigningRole, JWK>();
    await token.withSession(async (session) => {
      for (const role of settings.roles) {
        const problem = keyProblem(token, session, role.role, role.label);
        if (problem !== undefined) problems.push(`${role.labelVariable}: ${problem}`);
        else publicKeys.set(role.role, ecPublicJwk(token, session, role.label)!);
      }
      const kekProblem = keyProblem(token, session, 'kek', settings.kekLabel);
      if (kekProblem !== undefined) problems.push(`${settings.kekLabelVariable}: ${kekProblem}`);
    });
    const identities = new Map<SigningRole, SigningIdentity>();
    for (const role of settings.roles) {
      const publicJwk = publicKeys.get(role.role);
      if (!publicJwk) continue;
      const identity = await identityOf(token, role, publicJwk);
      if (typeof identity === 'string') problems.push(identity);
      else identities.set(role.role, identity);
    }
    if (problems.length > 0) throw new TokenProblem(problems.join('\n'));
    const { kekLabel } = settings;
    const root = await derivationRoot(token, kekLabel);
    log.info('keys in the PKCS#11 token', {
      module: settings.token.module,
      keys: Object.fromEntries([...settings.roles.map((r) => [r.role, r.label]), ['kek', kekLabel]]),
      sessions: settings.token.sessions,
    });
    return {
      signingIdentity: async (role) => {
        const identity = identities.get(role);
        if (!identity) throw new Error(`no ${role} identity`);
        return identity;
      },
      kek: tokenKek(token, kekLabel),
      tenantKeys: tokenTenantKeys(token),
      derivationRoot: root,
      readinessCheck: {
        name: 'keys',
        failure: () =>
          token.withSession(async (session) => {
            token.module.C_GetSessionInfo(session.handle);
            return undefined;
          }).catch((err: Error) => err.message),
      },
      close: () => token.close(),
    };
  } catch (err) {
    token.close();
    throw err;
  }
};
