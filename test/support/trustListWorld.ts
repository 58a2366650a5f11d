// A small EU trust ecosystem on loopback, for trusted-list tests: a LoTL pointing to a German and a
// French list (and to a PDF copy that must never be fetched), a PID providers LoTE, their
// signers, and one test issuer per case:
//
// | issuer    | listed in            | service type            | status                 |
// |-----------|----------------------|-------------------------|------------------------|
// | pid       | the LoTE (country DE) | 19602 PID/Issuance     | none (listed = trusted) |
// | qeaa      | DE list              | EAA/Q                   | granted                |
// | withdrawn | DE list              | EAA/Q                   | withdrawn              |
// | suspended | FR list              | EAA/Pub-EAA             | suspended (TS 102 231) |
// | unknown   | nowhere              |                         |                        |
import { startCrlServer, type CrlServer } from './crlServer.js';
import { createTestIssuer, type TestIssuer } from './credentials.js';
import {
  createListSigner,
  loteJson,
  SERVICE_TYPES,
  signLote,
  signXmlList,
  STATUSES,
  trustedListXml,
  type ListSigner,
} from './trustLists.js';

const HOUR = 3_600_000;

export interface TrustWorld {
  /** Serves every list; a test changes what a path answers with `server.serve`. */
  readonly server: CrlServer;
  readonly signers: { readonly lotl: ListSigner; readonly de: ListSigner; readonly fr: ListSigner; readonly lote: ListSigner };
  readonly issuers: { readonly pid: TestIssuer; readonly qeaa: TestIssuer; readonly withdrawn: TestIssuer; readonly suspended: TestIssuer; readonly unknown: TestIssuer };
  readonly urls: { readonly lotl: string; readonly de: string; readonly dePdf: string; readonly fr: string; readonly lote: string };
  readonly paths: { readonly lotl: string; readonly de: string; readonly dePdf: string; readonly fr: string; readonly lote: string };
  /** X509_TRUST_LIST_SOURCES for this world. */
  readonly sources: string;
  /** Signed documents, as served by `publish`. */
  lotlXml(sequenceNumber?: number): Promise<string>;
  deXml(sequenceNumber?: number, options?: { nextUpdate?: Date }): Promise<string>;
  frXml(sequenceNumber?: number): Promise<string>;
  loteJws(sequenceNumber?: number): Promise<string>;
  /** Serves the default version of every list. */
  publish(): Promise<void>;
  /** Every list path answers HTTP 503 from now on. */
  takeDown(): void;
  close(): Promise<void>;
}

export const startTrustWorld = async (): Promise<TrustWorld> => {
  const server = await startCrlServer();
  const [lotl, de, fr, lote] = await Promise.all([
    createListSigner('Test LoTL Signer'),
    createListSigner('Test DE Trusted List Signer'),
    createListSigner('Test FR Trusted List Signer'),
    createListSigner('Test PID Providers LoTE Signer'),
  ]);
  const issuers = {
    pid: await createTestIssuer({ rootCa: { commonName: 'PID Provider CA' } }),
    qeaa: await createTestIssuer({ rootCa: { commonName: 'QEAA Provider CA' } }),
    withdrawn: await createTestIssuer({ rootCa: { commonName: 'Withdrawn Provider CA' } }),
    suspended: await createTestIssuer({ rootCa: { commonName: 'Suspended Provider CA' } }),
    unknown: await createTestIssuer({ rootCa: { commonName: 'Unknown Provider CA' } }),
  };
  const paths = { lotl: '/lotl.xml', de: '/de.xml', dePdf: '/de.pdf', fr: '/fr.xml', lote: '/pid-providers.jws' };
  const urls = {
    lotl: server.url(paths.lotl),
    de: server.url(paths.de),
    dePdf: server.url(paths.dePdf),
    fr: server.url(paths.fr),
    lote: server.url(paths.lote),
  };
  const world: TrustWorld = {
    server,
    signers: { lotl, de, fr, lote },
    issuers,
    urls,
    paths,
    sources: JSON.stringify([
      { id: 'eu-lotl', format: 'lotl', url: urls.lotl, signingCertificates: [lotl.base64] },
      { id: 'eu-pid', format: 'lote', url: urls.lote, signingCertificates: [lote.base64] },
    ]),
    lotlXml: (sequenceNumber = 1) =>
      signXmlList(
        trustedListXml({
          territory: 'EU',
          sequenceNumber,
          listType: 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists',
          pointers: [
            { url: urls.lotl, territory: 'EU', certificates: [lotl.base64], listType: 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists' },
            { url: urls.de, territory: 'DE', certificates: [de.base64] },
            { url: urls.dePdf, territory: 'DE', certificates: [de.base64], mimeType: 'application/pdf' },
            { url: urls.fr, territory: 'FR', certificates: [fr.base64] },
          ],
        }),
        lotl,
      ),
    deXml: (sequenceNumber = 7, options = {}) =>
      signXmlList(
        trustedListXml({
          territory: 'DE',
          sequenceNumber,
          ...(options.nextUpdate ? { nextUpdate: options.nextUpdate } : {}),
          services: [
            { type: SERVICE_TYPES.qeaa, status: STATUSES.granted, certificates: [issuers.qeaa.ca.certificate], providerName: 'QEAA Provider GmbH', serviceName: 'Diplomas' },
            {
              type: SERVICE_TYPES.qeaa,
              status: STATUSES.withdrawn,
              certificates: [issuers.withdrawn.ca.certificate],
              providerName: 'Withdrawn Provider GmbH',
              serviceName: 'Old diplomas',
              history: [{ status: STATUSES.granted, from: new Date(Date.now() - 400 * 24 * HOUR) }],
            },
          ],
        }),
        de,
      ),
    frXml: (sequenceNumber = 3) =>
      signXmlList(
        trustedListXml({
          territory: 'FR',
          sequenceNumber,
          services: [{ type: SERVICE_TYPES.pubEaa, status: STATUSES.suspended, certificates: [issuers.suspended.ca.certificate], providerName: 'Agence suspendue', serviceName: 'Attestations' }],
        }),
        fr,
      ),
    loteJws: (sequenceNumber = 1) =>
      signLote(loteJson({ sequenceNumber, entities: [{ name: 'PID Provider', country: 'DE', services: [{ type: SERVICE_TYPES.pid, certificates: [issuers.pid.ca.certificate] }] }] }), lote),
    async publish() {
      const [lotlXml, deXml, frXml, loteJws] = await Promise.all([world.lotlXml(), world.deXml(), world.frXml(), world.loteJws()]);
      const serve = (path: string, body: string) => server.serve(path, { status: 200, body: Buffer.from(body) });
      serve(paths.lotl, lotlXml);
      serve(paths.de, deXml);
      serve(paths.fr, frXml);
      serve(paths.lote, loteJws);
      serve(paths.dePdf, '%PDF-1.4 not a list');
    },
    takeDown() {
      for (const path of Object.values(paths)) server.serve(path, { status: 503, body: Buffer.from('down') });
    },
    close: () => server.close(),
  };
  await world.publish();
  return world;
};
