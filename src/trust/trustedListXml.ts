// Reads a TS 119 612 TrustServiceStatusList (the EU LoTL or a national trusted list) from a DOM
// whose signature has already been verified: scheme information, pointers to other lists, and
// every trust service with its status history. Elements are looked up as direct children in
// the list's namespace, so a ServiceStatus inside a history instance is never taken for the
// current one.
import type { Document, Element } from '@xmldom/xmldom';
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { x509 } from '../crypto/x509.js';
import type { StatusPeriod, TrustList, TrustListPointer, TrustService } from './trustList.js';

const TSL = 'http://uri.etsi.org/02231/v2#';
const ADDITIONAL_TYPES = 'http://uri.etsi.org/02231/v2/additionaltypes#';

const children = (parent: Element | undefined, name: string, namespace = TSL): Element[] => {
  const out: Element[] = [];
  for (let node = parent?.firstChild ?? null; node !== null; node = node.nextSibling) {
    if (node.nodeType !== node.ELEMENT_NODE) continue;
    const element = node as Element;
    if (element.localName === name && element.namespaceURI === namespace) out.push(element);
  }
  return out;
};

/** The first element at the end of a path of child names. */
const at = (parent: Element | undefined, ...path: string[]): Element | undefined =>
  path.reduce<Element | undefined>((element, name) => children(element, name)[0], parent);

const text = (element: Element | undefined): string | undefined => {
  const value = element?.textContent?.trim();
  return value === undefined || value === '' ? undefined : value;
};

const date = (element: Element | undefined): Date | undefined => {
  const value = text(element);
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
};

/** A multilingual name: the English one, else the first. */
const name = (parent: Element | undefined): string => {
  const names = children(parent, 'Name');
  const english = names.find((n) => n.getAttribute('xml:lang') === 'en');
  return text(english ?? names[0]) ?? '';
};

const certificateBytes = (element: Element): Buffer => Buffer.from((element.textContent ?? '').replace(/\s+/g, ''), 'base64');

// A list may carry a certificate that does not parse (seen in real lists); it then identifies
// nothing, and the rest of the list still counts.
const parseCertificate = (bytes: Uint8Array): x509.X509Certificate[] => {
  try {
    return [new x509.X509Certificate(bytes)];
  } catch {
    return [];
  }
};

const identityCertificates = (identity: Element | undefined): x509.X509Certificate[] =>
  children(identity, 'DigitalId').flatMap((id) => children(id, 'X509Certificate').flatMap((c) => parseCertificate(certificateBytes(c))));

const statusPeriod = (information: Element | undefined): StatusPeriod => ({
  status: text(at(information, 'ServiceStatus')),
  from: date(at(information, 'StatusStartingTime')),
});

const services = (root: Element): TrustService[] =>
  children(at(root, 'TrustServiceProviderList'), 'TrustServiceProvider').flatMap((provider) => {
    const providerName = name(at(provider, 'TSPInformation', 'TSPName'));
    return children(at(provider, 'TSPServices'), 'TSPService').flatMap((service): TrustService[] => {
      const information = at(service, 'ServiceInformation');
      const type = text(at(information, 'ServiceTypeIdentifier'));
      if (type === undefined) return [];
      const history = children(at(service, 'ServiceHistory'), 'ServiceHistoryInstance').map(statusPeriod);
      return [{
        providerName,
        serviceName: name(at(information, 'ServiceName')),
        type,
        statuses: [statusPeriod(information), ...history.sort((a, b) => (b.from?.getTime() ?? 0) - (a.from?.getTime() ?? 0))],
        certificates: identityCertificates(at(information, 'ServiceDigitalIdentity')),
        country: undefined,
      }];
    });
  });

/** `OtherInformation` holds one item each: TSLType, SchemeTerritory, MimeType (another namespace)... */
const otherInformation = (pointer: Element, item: string, namespace = TSL): string | undefined =>
  children(at(pointer, 'AdditionalInformation'), 'OtherInformation')
    .map((info) => text(children(info, item, namespace)[0]))
    .find((value) => value !== undefined);

const pointers = (scheme: Element | undefined): TrustListPointer[] =>
  children(at(scheme, 'PointersToOtherTSL'), 'OtherTSLPointer').flatMap((pointer): TrustListPointer[] => {
    const url = text(at(pointer, 'TSLLocation'));
    if (url === undefined) return [];
    return [{
      url,
      territory: otherInformation(pointer, 'SchemeTerritory'),
      mimeType: otherInformation(pointer, 'MimeType', ADDITIONAL_TYPES),
      listType: otherInformation(pointer, 'TSLType'),
      signingCertificates: children(at(pointer, 'ServiceDigitalIdentities'), 'ServiceDigitalIdentity').flatMap((identity) =>
        children(identity, 'DigitalId').flatMap((id) => children(id, 'X509Certificate').map(certificateBytes)),
      ),
    }];
  });

/** The list a verified document states, or what it lacks to be one. */
export const parseTrustedListXml = (document: Document): Either<string, TrustList> => {
  const root = document.documentElement!;
  if (root.localName !== 'TrustServiceStatusList' || root.namespaceURI !== TSL) {
    return left(`root element is ${root.localName ?? '?'}, not a TS 119 612 TrustServiceStatusList`);
  }
  const scheme = at(root, 'SchemeInformation');
  const sequence = text(at(scheme, 'TSLSequenceNumber'));
  if (sequence === undefined || !/^\d{1,15}$/.test(sequence)) return left('TSLSequenceNumber is missing or not a number');
  const issuedAt = date(at(scheme, 'ListIssueDateTime'));
  if (issuedAt === undefined) return left('ListIssueDateTime is missing or not a date-time');
  return right({
    listType: text(at(scheme, 'TSLType')) ?? '',
    territory: text(at(scheme, 'SchemeTerritory')),
    operator: name(at(scheme, 'SchemeOperatorName')),
    sequenceNumber: Number(sequence),
    issuedAt,
    nextUpdate: date(at(scheme, 'NextUpdate', 'dateTime')),
    services: services(root),
    pointers: pointers(scheme),
  });
};
