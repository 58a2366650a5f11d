// The one way to import @peculiar/x509 in this code base: it needs a Reflect metadata subset
// installed before it loads, and a WebCrypto provider (Node's) set once.
import './reflectMetadata.js';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

export { x509 };
