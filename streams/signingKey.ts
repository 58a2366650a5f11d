// Stream category `signingkey`: one stream per signing key of a tenant (issue 38), the resource API's
// `signing-keys` kind, `signingkey-<key id>`. Every event is one revision of its envelope
// (streams/resource.ts). The key itself never appears: a key made in a PKCS#11 token is recorded by
// its label; a key of the file store by its private part sealed with the key's own data key (owner
// `signingkey.<key id>`), so destroying that data key destroys the key. As a decider:
//
//   none --CreateSigningKey--> pending (no certificate) | ready (a development chain at once)
//   pending|ready|active --AttachCertificate--> ready (active stays active: a renewed certificate)
//   ready --ActivateSigningKey--> active
//   active --RetireSigningKey--> retired        (another key of its role was activated)
//   any --DestroySigningKey--> destroyed         (the tenant's data erased: its material is destroyed next)
//
// The certificate rules are decided on facts the route read from the chain (which key the leaf
// holds, its validity, whether it names the tenant's credential issuer), so the rules stay pure.
import * as t from 'io-ts';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { sealedFor, sealedPurpose } from './dataKey.js';
import { eventCodec } from './event.js';
import {
  admitsChange,
  envelopeOf,
  resourceKind,
  sharedEvents,
  StringMap,
  type KindCommand,
  type ResourceChange,
  type ResourceDecider,
  type ResourceError,
  type Target,
} from './resource.js';

export const category = 'signingkey';
export const signingKeyStream = (keyId: string): string => streamName(category, keyId);
/** The data key sealing a file-store key's private part. */
export const signingKeyOwner = (keyId: string): string => `signingkey.${keyId}`;

export const SIGNING_KEY_KIND = { name: 'signing-key', version: 1 } as const;

export const SigningKeyRole = t.keyof({ access: null, issuer: null }, 'SigningKeyRole');
export type SigningKeyRole = t.TypeOf<typeof SigningKeyRole>;

export type SigningKeyState = 'pending' | 'ready' | 'active' | 'retired' | 'destroyed';

/** The private scalar of a P-256 key (JWK `d`), what the file store seals. */
export const SIGNING_KEY_PRIVATE = sealedPurpose('signing-key-private', t.type({ d: t.string }));

/** Where the key is: sealed in this stream (file store), or in the token under a label (pkcs11). */
export const KeyMaterial = t.union([
  t.type({ store: t.literal('file'), sealedKey: sealedFor(SIGNING_KEY_PRIVATE) }),
  t.type({ store: t.literal('pkcs11'), label: t.string }),
]);
export type KeyMaterial = t.TypeOf<typeof KeyMaterial>;

const PublicJwk = t.type({ kty: t.literal('EC'), crv: t.literal('P-256'), x: t.string, y: t.string });
export type PublicJwk = t.TypeOf<typeof PublicJwk>;

/** A certificate chain for the key: PEM, leaf first, and the leaf's validity. */
const Certificate = t.type({ chain: t.string, notBefore: t.string, notAfter: t.string });
export type Certificate = t.TypeOf<typeof Certificate>;

export const SigningKeyCreated = eventCodec(
  'SigningKeyCreated',
  t.type({
    keyId: t.string,
    tenantId: t.string,
    role: SigningKeyRole,
    publicJwk: PublicJwk,
    material: KeyMaterial,
    /** PKCS#10, PEM, signed by the key. */
    csr: t.string,
    /** A development chain made with the key, or null (pending). */
    certificate: t.union([Certificate, t.null]),
    annotations: StringMap,
    labels: StringMap,
    createdAt: t.string,
  }),
);
/** `state`: the key's once certified: `ready`, or `active` for an active key's renewed certificate. */
export const SigningKeyCertified = eventCodec(
  'SigningKeyCertified',
  t.type({ keyId: t.string, certificate: Certificate, state: t.keyof({ ready: null, active: null }), certifiedAt: t.string }),
);
export const SigningKeyActivated = eventCodec('SigningKeyActivated', t.type({ keyId: t.string, activatedAt: t.string }));
/** `replacedBy`: the key of the same role activated in its place. */
export const SigningKeyRetired = eventCodec('SigningKeyRetired', t.type({ keyId: t.string, replacedBy: t.string, retiredAt: t.string }));

/** The resource API's shared changes: SigningKeyAnnotationsUpdated, ...LabelsUpdated, ...Deleted, ...Restored, each `{keyId, ...}`. */
const shared = sharedEvents('SigningKey', 'keyId');

/** The tenant's data is erased: the key's material is destroyed (after this event), and it never signs again. */
export const SigningKeyDestroyed = eventCodec('SigningKeyDestroyed', t.type({ keyId: t.string, destroyedAt: t.string }));

/** Every event a signing-key stream can hold. */
export const SigningKeyEvent = t.union([SigningKeyCreated, SigningKeyCertified, SigningKeyActivated, SigningKeyRetired, SigningKeyDestroyed, ...shared.codecs]);
export type SigningKeyEvent = t.TypeOf<typeof SigningKeyEvent>;

const certificateData = (certificate: Certificate | null) => ({
  certificate_chain: certificate?.chain ?? null,
  not_before: certificate?.notBefore ?? null,
  not_after: certificate?.notAfter ?? null,
});

/** What the envelope shows: never the material's sealed part, only where the key is. */
export const signingKeyResourceChange = (event: SigningKeyEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  switch (event.type) {
    case 'SigningKeyCreated': {
      const d = event.data;
      const state: SigningKeyState = d.certificate ? 'ready' : 'pending';
      return {
        op: 'created',
        id: d.keyId,
        tenantId: d.tenantId,
        kind: SIGNING_KEY_KIND,
        at: d.createdAt,
        annotations: d.annotations,
        labels: d.labels,
        data: {
          role: d.role,
          state,
          public_jwk: d.publicJwk,
          csr: d.csr,
          key_store: d.material.store,
          token_label: d.material.store === 'pkcs11' ? d.material.label : null,
          ...certificateData(d.certificate),
          activated_at: null,
          retired_at: null,
          replaced_by: null,
        },
      };
    }
    case 'SigningKeyCertified':
      return { op: 'data', at: event.data.certifiedAt, data: { state: event.data.state, ...certificateData(event.data.certificate) } };
    case 'SigningKeyActivated':
      return { op: 'data', at: event.data.activatedAt, data: { state: 'active', activated_at: event.data.activatedAt } };
    case 'SigningKeyRetired':
      return { op: 'data', at: event.data.retiredAt, data: { state: 'retired', retired_at: event.data.retiredAt, replaced_by: event.data.replacedBy } };
    case 'SigningKeyDestroyed':
      return { op: 'data', at: event.data.destroyedAt, data: { state: 'destroyed' } };
  }
};

type Created = t.TypeOf<typeof SigningKeyCreated>['data'];

/** POST /signing-keys: the key already made in the key store. */
export type CreateSigningKey = { readonly type: 'CreateSigningKey'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };

/** What the route read from an uploaded chain: the rules below decide on these facts. */
export interface CertificateFacts {
  readonly certificate: Certificate;
  /** The leaf's P-256 public key (x, y), or undefined when it holds no P-256 key. */
  readonly leafKey: { readonly x: string; readonly y: string } | undefined;
  /** Whether each certificate of the chain is signed by the key of the one after it. */
  readonly chainLinked: boolean;
  /** Whether a subjectAltName of the leaf names the tenant's credential issuer (certificates.ts `namesIssuer`). */
  readonly namesCredentialIssuer: boolean;
}

/** PUT /signing-keys/{id}/certificate. */
export type AttachCertificate = { readonly type: 'AttachCertificate'; readonly data: Target & CertificateFacts };
/** POST /signing-keys/{id}/activate. */
export type ActivateSigningKey = { readonly type: 'ActivateSigningKey'; readonly data: Target };
/** The service retires the active key a newly activated one replaces. */
export type RetireSigningKey = { readonly type: 'RetireSigningKey'; readonly data: Target & { readonly replacedBy: string } };

/** The tenant's erasure (src/resources/tenantErasure.ts): for the key's own tenant, in any state, without If-Match. */
export type DestroySigningKey = { readonly type: 'DestroySigningKey'; readonly data: { readonly tenantId: string; readonly id: string; readonly at: string } };

export type Command = KindCommand<CreateSigningKey, never> | AttachCertificate | ActivateSigningKey | RetireSigningKey | DestroySigningKey;

/** The rule an uploaded certificate breaks (400, named). */
export type CertificateRule = 'leaf_key' | 'chain' | 'not_yet_valid' | 'expired' | 'issuer_name';

export type DomainError =
  | ResourceError
  | { readonly _tag: 'CertificateRefused'; readonly rule: CertificateRule }
  /** The key's state does not allow the change (409). */
  | { readonly _tag: 'SigningKeyState'; readonly state: SigningKeyState; readonly operation: 'certify' | 'activate' | 'delete' };

const signingKeyResource = resourceKind<SigningKeyEvent, CreateSigningKey>({
  category,
  codec: SigningKeyEvent,
  changeOf: signingKeyResourceChange,
  create: { type: 'CreateSigningKey', created: ({ data: { at, ...created } }) => ({ type: 'SigningKeyCreated', data: { ...created, createdAt: at } }) },
  shared: shared.events,
});

const stateOf = (data: { readonly [member: string]: unknown }): SigningKeyState => data['state'] as SigningKeyState;

/** The first rule the chain breaks for this key, or undefined. */
const brokenRule = (facts: CertificateFacts, role: SigningKeyRole, publicJwk: { readonly x: string; readonly y: string }, at: string): CertificateRule | undefined => {
  if (!facts.leafKey || facts.leafKey.x !== publicJwk.x || facts.leafKey.y !== publicJwk.y) return 'leaf_key';
  if (!facts.chainLinked) return 'chain';
  if (Date.parse(at) < Date.parse(facts.certificate.notBefore)) return 'not_yet_valid';
  if (Date.parse(at) >= Date.parse(facts.certificate.notAfter)) return 'expired';
  if (role === 'issuer' && !facts.namesCredentialIssuer) return 'issuer_name';
  return undefined;
};

/**
 * The signing-key kind's rules: created once, the changes every kind shares (but the active key
 * is not deleted), and its own: a
 * certificate for the key (not once retired), activation of a key with a certificate, retirement
 * of an active key. Retiring a key that is not active records nothing (a repeated activation's step).
 */
export const signingKey: ResourceDecider<SigningKeyEvent, Command, DomainError> = {
  ...signingKeyResource,
  decide: (command, state) => {
    switch (command.type) {
      case 'Delete': {
        // The active key is not deleted: the tenant would sign with nothing of its own. Activate another first.
        const admitted = admitsChange(envelopeOf(state), command.data, false);
        if (isLeft(admitted) || stateOf(admitted.right.data) !== 'active') return signingKeyResource.decide(command, state);
        return left({ _tag: 'SigningKeyState', state: 'active', operation: 'delete' });
      }
      case 'DestroySigningKey': {
        const current = envelopeOf(state);
        if (!current || current.tenantId !== command.data.tenantId) return left({ _tag: 'NotFound' });
        if (stateOf(current.data) === 'destroyed') return right([]);
        return right([{ type: 'SigningKeyDestroyed', data: { keyId: command.data.id, destroyedAt: command.data.at } }]);
      }
      case 'AttachCertificate':
      case 'ActivateSigningKey':
      case 'RetireSigningKey': {
        const admitted = admitsChange(envelopeOf(state), command.data, false);
        if (isLeft(admitted)) return admitted;
        const { id: keyId, at } = command.data;
        const data = admitted.right.data;
        const current = stateOf(data);
        switch (command.type) {
          case 'AttachCertificate': {
            if (current === 'retired' || current === 'destroyed') return left({ _tag: 'SigningKeyState', state: current, operation: 'certify' });
            const rule = brokenRule(command.data, data['role'] as SigningKeyRole, data['public_jwk'] as PublicJwk, at);
            if (rule) return left({ _tag: 'CertificateRefused', rule });
            const state = current === 'active' ? 'active' : 'ready';
            return right([{ type: 'SigningKeyCertified', data: { keyId, certificate: command.data.certificate, state, certifiedAt: at } }]);
          }
          case 'ActivateSigningKey':
            if (current !== 'ready') return left({ _tag: 'SigningKeyState', state: current, operation: 'activate' });
            return right([{ type: 'SigningKeyActivated', data: { keyId, activatedAt: at } }]);
          case 'RetireSigningKey':
            if (current !== 'active') return right([]);
            return right([{ type: 'SigningKeyRetired', data: { keyId, replacedBy: command.data.replacedBy, retiredAt: at } }]);
        }
      }
      default:
        return signingKeyResource.decide(command, state);
    }
  },
};
