// The way out for tests whose status list, CRL and DID servers listen on loopback: the egress
// guard with EGRESS_ALLOW_PRIVATE_NETWORKS's switch on. Tests of the guard itself make their own.
import { createEgress } from '../../src/egress/egress.js';

export const loopbackEgress = createEgress({ allowPrivateNetworks: true });
