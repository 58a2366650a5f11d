// The key store KEY_STORE names (src/crypto/keyStore.ts), opened from the configuration: for the
// service and for `ops`. With pkcs11 the PIN comes from PKCS11_PIN or PKCS11_PIN_FILE and is
// handed to the token only.
import { readFile } from 'node:fs/promises';
import { configVariableNames as v, type Config, type TokenSettings } from '../config/config.js';
import { fileKeyStore, type KeyStore } from '../crypto/keyStore.js';
import { openPkcs11KeyStore, type Pkcs11Settings } from '../crypto/pkcs11/keyStore.js';
import { TokenProblem, type TokenOptions } from '../crypto/pkcs11/token.js';
import type { Logger } from '../log.js';

/** The token of the configuration (the service's and `ops keys`'); reads PKCS11_PIN_FILE. */
export const tokenOptions = async (config: TokenSettings): Promise<TokenOptions> => {
  if (config.pkcs11Module === undefined) throw new TokenProblem(`${v.pkcs11Module}: required when KEY_STORE is pkcs11`);
  let pin = config.pkcs11Pin;
  if (pin === undefined && config.pkcs11PinFile !== undefined) {
    try {
      pin = (await readFile(config.pkcs11PinFile, 'utf8')).trim();
    } catch (err) {
      throw new TokenProblem(`${v.pkcs11PinFile}: ${config.pkcs11PinFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (!pin) throw new TokenProblem(`${v.pkcs11Pin}: set it, or ${v.pkcs11PinFile}`);
  if ((config.pkcs11TokenLabel === undefined) === (config.pkcs11Slot === undefined)) {
    throw new TokenProblem(`${v.pkcs11TokenLabel}, ${v.pkcs11Slot}: set exactly one`);
  }
  return { module: config.pkcs11Module, tokenLabel: config.pkcs11TokenLabel, slot: config.pkcs11Slot, pin, sessions: config.pkcs11Sessions };
};

// loadConfig has checked that every one of these is set with KEY_STORE=pkcs11.
const pkcs11Settings = async (config: Config): Promise<Pkcs11Settings> => ({
  token: await tokenOptions(config),
  roles: [
    { role: 'access', label: config.accessKeyLabel ?? '', labelVariable: v.accessKeyLabel, certificateFile: config.accessCertificateFile ?? '', certificateVariable: v.accessCertificateFile },
    { role: 'issuer', label: config.issuerKeyLabel ?? '', labelVariable: v.issuerKeyLabel, certificateFile: config.issuerCertificateFile ?? '', certificateVariable: v.issuerCertificateFile },
  ],
  kekLabel: config.kekLabel ?? '',
  kekLabelVariable: v.kekLabel,
});

/** The configured store. Throws with one line per problem (a TokenProblem for the token). */
export const openKeyStore = async (config: Config, log: Logger): Promise<KeyStore> =>
  config.keyStore === 'pkcs11' ? openPkcs11KeyStore(await pkcs11Settings(config), log) : fileKeyStore(config, log);
