// TEST trusted lists of our own, signed with keys made here: TS 119 612 XML lists (a LoTL and
// national lists) with an enveloped XAdES-BES signature made by xmldsigjs, and TS 119 602 LoTEs
// signed as JWS by jose. Only the signing lives here; verification is src/trust's.
//
//   const signer = await createListSigner('DE trusted list signer');
//   const xml = await signXmlList(trustedListXml({ territory: 'DE', sequenceNumber: 7, services: [...] }), signer);
//   const jws = await signLote(loteJson({ sequenceNumber: 1, entities: [...] }), signer);
import { createHash, webcrypto } from 'node:crypto';
import { Crypto } from '@peculiar/webcrypto';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { CompactSign, FlattenedSign } from 'jose';
import { DataObject, SignedXml } from 'xmldsigjs';
import { createCertificateAuthority, type CertifiedKey } from '../../src/crypto/certificates.js';
import type { x509 } from '../../src/crypto/x509.js';
// Registers xmldsigjs's DOM, XPath and crypto engine, as the service does.
import '../../src/trust/xmlSignature.js';

const hour = 3_600_000;
const TSL = 'http://uri.etsi.org/02231/v2#';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const XADES = 'http://uri.etsi.org/01903/v1.3.2#';

export const SERVICE_TYPES = {
  pid: 'http://uri.etsi.org/19602/SvcType/PID/Issuance',
  qeaa: 'http://uri.etsi.org/TrstSvc/Svctype/EAA/Q',
  pubEaa: 'http://uri.etsi.org/TrstSvc/Svctype/EAA/Pub-EAA',
  eaa: 'http://uri.etsi.org/TrstSvc/Svctype/EAA',
  caQc: 'http://uri.etsi.org/TrstSvc/Svctype/CA/QC',
} as const;

export const STATUSES = {
  granted: 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted',
  withdrawn: 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/withdrawn',
  /** TS 119 612 has none; the older TS 102 231 vocabulary does. */
  suspended: 'http://uri.etsi.org/TrstSvc/Svcstatus/suspended',
  notified: 'http://uri.etsi.org/19602/PubEAAProvidersList/SvcStatus/notified',
} as const;

export interface ListSigner {
  readonly ca: CertifiedKey;
  readonly certificate: x509.X509Certificate;
  /** Base64 DER, as `signingCertificates` and pointers carry it. */
  readonly base64: string;
}

/** Valid from 30 days ago by default, so lists dated in the past were signed while it was valid. */
export const createListSigner = async (commonName: string, validity?: { notBefore: Date; notAfter: Date }): Promise<ListSigner> => {
  const ca = await createCertificateAuthority({ commonName, ...(validity ?? { notBefore: new Date(Date.now() - 30 * 24 * hour), notAfter: new Date(Date.now() + 365 * 24 * hour) }) });
  return { ca, certificate: ca.certificate, base64: Buffer.from(ca.certificate.rawData).toString('base64') };
};

export interface ListedService {
  readonly type: string;
  readonly status?: string;
  readonly statusFrom?: Date;
  readonly certificates: readonly x509.X509Certificate[];
  readonly providerName?: string;
  readonly serviceName?: string;
  /** Earlier statuses, newest first. */
  readonly history?: readonly { readonly status: string; readonly from: Date }[];
}

export interface ListPointer {
  readonly url: string;
  readonly territory: string;
  readonly certificates: readonly string[];
  readonly mimeType?: string;
  readonly listType?: string;
}

export interface XmlListContent {
  readonly territory: string;
  readonly sequenceNumber: number;
  readonly issuedAt?: Date;
  readonly nextUpdate?: Date;
  readonly listType?: string;
  readonly services?: readonly ListedService[];
  readonly pointers?: readonly ListPointer[];
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const b64 = (certificate: x509.X509Certificate): string => Buffer.from(certificate.rawData).toString('base64');

const serviceXml = (service: ListedService): string => {
  const identity = service.certificates.map((c) => `<DigitalId><X509Certificate>${b64(c)}</X509Certificate></DigitalId>`).join('');
  const history = (service.history ?? [])
    .map((h) => `<ServiceHistoryInstance><ServiceTypeIdentifier>${service.type}</ServiceTypeIdentifier><ServiceName><Name xml:lang="en">${escape(service.serviceName ?? 'Service')}</Name></ServiceName><ServiceDigitalIdentity>${identity}</ServiceDigitalIdentity><ServiceStatus>${h.status}</ServiceStatus><StatusStartingTime>${h.from.toISOString()}</StatusStartingTime></ServiceHistoryInstance>`)
    .join('');
  return `<TSPService><ServiceInformation><ServiceTypeIdentifier>${service.type}</ServiceTypeIdentifier><ServiceName><Name xml:lang="en">${escape(service.serviceName ?? 'Service')}</Name></ServiceName><ServiceDigitalIdentity>${identity}</ServiceDigitalIdentity><ServiceStatus>${service.status ?? STATUSES.granted}</ServiceStatus><StatusStartingTime>${(service.statusFrom ?? new Date(Date.now() - 24 * hour)).toISOString()}</StatusStartingTime></ServiceInformation>${history ? `<ServiceHistory>${history}</ServiceHistory>` : ''}</TSPService>`;
};

const pointerXml = (pointer: ListPointer): string =>
  `<OtherTSLPointer><ServiceDigitalIdentities>${pointer.certificates.map((c) => `<ServiceDigitalIdentity><DigitalId><X509Certificate>${c}</X509Certificate></DigitalId></ServiceDigitalIdentity>`).join('')}</ServiceDigitalIdentities><TSLLocation>${escape(pointer.url)}</TSLLocation><AdditionalInformation><OtherInformation><TSLType>${pointer.listType ?? 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric'}</TSLType></OtherInformation><OtherInformation><SchemeTerritory>${pointer.territory}</SchemeTerritory></OtherInformation><OtherInformation><ns3:MimeType xmlns:ns3="http://uri.etsi.org/02231/v2/additionaltypes#">${pointer.mimeType ?? 'application/vnd.etsi.tsl+xml'}</ns3:MimeType></OtherInformation></AdditionalInformation></OtherTSLPointer>`;

/** A TS 119 612 list, unsigned. */
export const trustedListXml = (content: XmlListContent): string => {
  const issuedAt = content.issuedAt ?? new Date(Date.now() - hour);
  const nextUpdate = content.nextUpdate ?? new Date(Date.now() + 180 * 24 * hour);
  const services = (content.services ?? []).map(
    (s) => `<TrustServiceProvider><TSPInformation><TSPName><Name xml:lang="en">${escape(s.providerName ?? 'Provider')}</Name></TSPName></TSPInformation><TSPServices>${serviceXml(s)}</TSPServices></TrustServiceProvider>`,
  );
  const pointers = content.pointers ? `<PointersToOtherTSL>${content.pointers.map(pointerXml).join('')}</PointersToOtherTSL>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<TrustServiceStatusList xmlns="${TSL}" Id="tsl-${content.territory}" TSLTag="http://uri.etsi.org/19612/TSLTag"><SchemeInformation><TSLVersionIdentifier>5</TSLVersionIdentifier><TSLSequenceNumber>${content.sequenceNumber}</TSLSequenceNumber><TSLType>${content.listType ?? 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric'}</TSLType><SchemeOperatorName><Name xml:lang="en">Test operator ${content.territory}</Name></SchemeOperatorName>${pointers}<SchemeTerritory>${content.territory}</SchemeTerritory><ListIssueDateTime>${issuedAt.toISOString()}</ListIssueDateTime><NextUpdate><dateTime>${nextUpdate.toISOString()}</dateTime></NextUpdate></SchemeInformation>${services.length > 0 ? `<TrustServiceProviderList>${services.join('')}</TrustServiceProviderList>` : ''}</TrustServiceStatusList>`;
};

// xmldsigjs signs with its registered engine, whose keys are its own CryptoKey objects.
const engine = new Crypto();
const engineKey = async (signer: ListSigner): Promise<webcrypto.CryptoKey> =>
  engine.subtle.importKey('pkcs8', await webcrypto.subtle.exportKey('pkcs8', signer.ca.keys.privateKey), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']) as Promise<webcrypto.CryptoKey>;

/** Signs `xml` as real lists are: enveloped, exclusive C14N, SHA-256, with XAdES SignedProperties. */
export const signXmlList = async (xml: string, signer: ListSigner): Promise<string> => {
  const document = new DOMParser().parseFromString(xml, 'application/xml');
  const certDigest = createHash('sha256').update(Buffer.from(signer.certificate.rawData)).digest('base64');
  const qualifying = new DOMParser().parseFromString(
    `<ds:Object xmlns:ds="${DS}"><xades:QualifyingProperties xmlns:xades="${XADES}" Target="#signature"><xades:SignedProperties Id="signed-properties"><xades:SignedSignatureProperties><xades:SigningTime>${new Date().toISOString()}</xades:SigningTime><xades:SigningCertificateV2><xades:Cert><xades:CertDigest><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>${certDigest}</ds:DigestValue></xades:CertDigest></xades:Cert></xades:SigningCertificateV2></xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties></ds:Object>`,
    'application/xml',
  );
  const signed = new SignedXml();
  const object = new DataObject();
  object.LoadXml(qualifying.documentElement as never);
  signed.XmlSignature.ObjectList.Add(object);
  signed.XmlSignature.SignedInfo.CanonicalizationMethod.Algorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
  await signed.Sign({ name: 'ECDSA', hash: 'SHA-256' } as never, (await engineKey(signer)) as never, document as never, {
    id: 'signature',
    x509: [signer.base64],
    references: [
      { uri: '', hash: 'SHA-256', transforms: ['enveloped', 'exc-c14n'] },
      { uri: '#signed-properties', type: 'http://uri.etsi.org/01903#SignedProperties', hash: 'SHA-256', transforms: ['exc-c14n'] },
    ],
  });
  document.documentElement!.appendChild(signed.GetXml() as never);
  return new XMLSerializer().serializeToString(document);
};

export interface LoteEntity {
  readonly name: string;
  /** Names the notifying Member State, as `.../ListOfTrustedEntities/PIDProvider/<CC>`. */
  readonly country?: string;
  readonly services: readonly ListedService[];
}

/** A TS 119 602 LoTE payload, `{"LoTE": ...}`. */
export const loteJson = (content: { sequenceNumber: number; listType?: string; issuedAt?: Date; nextUpdate?: Date; entities: readonly LoteEntity[] }): Record<string, unknown> => ({
  LoTE: {
    ListAndSchemeInformation: {
      LoTEVersionIdentifier: 1,
      LoTESequenceNumber: content.sequenceNumber,
      LoTEType: content.listType ?? 'http://uri.etsi.org/19602/LoTEType/EUPIDProvidersList',
      SchemeOperatorName: [{ lang: 'en', value: 'Test Commission' }],
      SchemeTerritory: 'EU',
      ListIssueDateTime: (content.issuedAt ?? new Date(Date.now() - hour)).toISOString(),
      NextUpdate: (content.nextUpdate ?? new Date(Date.now() + 180 * 24 * hour)).toISOString(),
    },
    TrustedEntitiesList: content.entities.map((entity) => ({
      TrustedEntityInformation: {
        TEName: [{ lang: 'en', value: entity.name }],
        TEInformationURI: [
          { lang: 'en', uriValue: 'https://provider.example' },
          ...(entity.country ? [{ lang: 'en', uriValue: `http://uri.etsi.org/19602/ListOfTrustedEntities/PIDProvider/${entity.country}` }] : []),
        ],
      },
      TrustedEntityServices: entity.services.map((service) => ({
        ServiceInformation: {
          ServiceName: [{ lang: 'en', value: service.serviceName ?? 'Service' }],
          ServiceDigitalIdentity: { X509Certificates: service.certificates.map((c) => ({ val: b64(c) })) },
          ServiceTypeIdentifier: service.type,
          ...(service.status ? { ServiceStatus: service.status, StatusStartingTime: (service.statusFrom ?? new Date(Date.now() - 24 * hour)).toISOString() } : {}),
        },
      })),
    })),
  },
});

/** A compact JWS (ES256, the signer's certificate in `x5c`) over a LoTE payload. */
export const signLote = async (payload: unknown, signer: ListSigner): Promise<string> =>
  new CompactSign(Buffer.from(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ: 'JOSE', x5c: [signer.base64] })
    .sign(signer.ca.keys.privateKey);

/** The same, in the flattened JSON serialisation. */
export const signLoteFlattened = async (payload: unknown, signer: ListSigner): Promise<string> =>
  JSON.stringify(
    await new FlattenedSign(Buffer.from(JSON.stringify(payload))).setProtectedHeader({ alg: 'ES256', x5c: [signer.base64] }).sign(signer.ca.keys.privateKey),
  );
