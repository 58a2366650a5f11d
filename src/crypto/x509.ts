// The one way to import @peculiar/x509 in this code base: its dependency injection needs the
// Reflect metadata API installed before it loads, and a WebCrypto provider (Node's) set once.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

export { x509 };
