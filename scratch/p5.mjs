import { createRequire } from 'node:module';
import { createHash, webcrypto } from 'node:crypto';
const require = createRequire('/work/wt-trustlists/package.json');
await import('/work/wt-trustlists/dist/src/trust/xmlSignature.js');
const xmldsig = await import('xmldsigjs');
const xmldom = require('@xmldom/xmldom');
const { createCertificateAuthority } = await import('/work/wt-trustlists/dist/src/crypto/certificates.js');
const ca = await createCertificateAuthority({ commonName: 'Test Trusted List Signer' });
const certB64 = Buffer.from(ca.certificate.rawData).toString('base64');
const xml = `<?xml version="1.0" encoding="UTF-8"?><TrustServiceStatusList xmlns="http://uri.etsi.org/02231/v2#" Id="tsl"><SchemeInformation><TSLSequenceNumber>3</TSLSequenceNumber><ListIssueDateTime>2026-01-01T00:00:00Z</ListIssueDateTime></SchemeInformation></TrustServiceStatusList>`;
const doc = new xmldom.DOMParser().parseFromString(xml, 'application/xml');
const signed = new xmldsig.SignedXml();
const XADES='http://uri.etsi.org/01903/v1.3.2#', DS='http://www.w3.org/2000/09/xmldsig#';
const objDoc = new xmldom.DOMParser().parseFromString(`<ds:Object xmlns:ds="${DS}"><xades:QualifyingProperties xmlns:xades="${XADES}" Target="#sig"><xades:SignedProperties Id="sp"><xades:SignedSignatureProperties><xades:SigningTime>2026-01-01T00:00:00Z</xades:SigningTime><xades:SigningCertificateV2><xades:Cert><xades:CertDigest><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>${createHash('sha256').update(Buffer.from(ca.certificate.rawData)).digest('base64')}</ds:DigestValue></xades:CertDigest></xades:Cert></xades:SigningCertificateV2></xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties></ds:Object>`, 'application/xml');
const obj = new xmldsig.DataObject(); obj.LoadXml(objDoc.documentElement);
signed.XmlSignature.ObjectList.Add(obj);
const { Crypto } = await import('@peculiar/webcrypto');
const eng = new Crypto();
const pk = await eng.subtle.importKey('pkcs8', await webcrypto.subtle.exportKey('pkcs8', ca.keys.privateKey), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
await signed.Sign({ name: 'ECDSA', hash: 'SHA-256' }, pk, doc, {
  id: 'sig',
  x509: [certB64],
  references: [
    { uri: '', hash: 'SHA-256', transforms: ['enveloped', 'exc-c14n'] },
    { uri: '#sp', type: 'http://uri.etsi.org/01903#SignedProperties', hash: 'SHA-256', transforms: ['exc-c14n'] },
  ],
});
doc.documentElement.appendChild(signed.GetXml());
const out = new xmldom.XMLSerializer().serializeToString(doc);
console.log(out.slice(0, 3000));
const { xmlText, parseXml, verifyEnvelopedSignature } = await import('/work/wt-trustlists/dist/src/trust/xmlSignature.js');
const d2 = parseXml(xmlText(Buffer.from(out)).right).right;
console.log(await verifyEnvelopedSignature(d2, [Buffer.from(ca.certificate.rawData)]));
const bad = out.replace('<TSLSequenceNumber>3<','<TSLSequenceNumber>4<');
console.log(await verifyEnvelopedSignature(parseXml(bad).right, [Buffer.from(ca.certificate.rawData)]));
const bad2 = out.replace('2026-01-01T00:00:00Z</xades:SigningTime>','2026-01-02T00:00:00Z</xades:SigningTime>');
console.log(await verifyEnvelopedSignature(parseXml(bad2).right, [Buffer.from(ca.certificate.rawData)]));
