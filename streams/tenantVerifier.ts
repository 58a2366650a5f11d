// Stream category `tenantverifier`: one stream per tenant, its registration as a relying party
// (`/verifier`), a singleton resource (streams/singleton.ts): the ETSI TS 119 475 registration
// certificate as given (checked before it is recorded), the `credentials` it registers, and
// whether presentation requests are held to them.
import * as t from 'io-ts';
import { eventCodec } from './event.js';
import { JsonArray, resourceKind, sharedEvents, type ResourceChange } from './resource.js';
import type { Json } from './kernel.js';
import { implicitRevision, singletonKind, singletonStream, type SingletonTarget } from './singleton.js';

export const category = 'tenantverifier';
export const VERIFIER_KIND = { name: 'verifier', version: 1 } as const;

export const verifierStream = (tenantId: string): string => singletonStream(category, VERIFIER_KIND.name, tenantId);

export const TenantVerifierCreated = eventCodec('TenantVerifierCreated', t.type({ verifierId: t.string, tenantId: t.string, createdAt: t.string }));
/** `PUT /verifier`: the registration certificate (null: none), its parsed `credentials`, and enforcement. */
export const TenantVerifierRegistered = eventCodec(
  'TenantVerifierRegistered',
  t.type({
    verifierId: t.string,
    registrationCertificate: t.union([t.string, t.null]),
    credentials: JsonArray,
    enforceRegistration: t.boolean,
    registeredAt: t.string,
  }),
);

const shared = sharedEvents('TenantVerifier', 'verifierId');

export const TenantVerifierEvent = t.union([TenantVerifierCreated, TenantVerifierRegistered, ...shared.codecs]);
export type TenantVerifierEvent = t.TypeOf<typeof TenantVerifierEvent>;

const registration = (certificate: string | null, credentials: readonly Json[], enforce: boolean) => ({
  registration_certificate: certificate,
  credentials: [...credentials],
  enforce_registration: enforce,
});

export const verifierResourceChange = (event: TenantVerifierEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  switch (event.type) {
    case 'TenantVerifierCreated': {
      const d = event.data;
      return { op: 'created', id: d.verifierId, tenantId: d.tenantId, kind: VERIFIER_KIND, at: d.createdAt, annotations: {}, labels: {}, data: registration(null, [], false) };
    }
    case 'TenantVerifierRegistered': {
      const d = event.data;
      return { op: 'data', at: d.registeredAt, data: registration(d.registrationCertificate, d.credentials, d.enforceRegistration) };
    }
  }
};

/** `PUT /verifier`, the certificate already checked. */
export type RegisterVerifier = {
  readonly type: 'RegisterVerifier';
  readonly data: SingletonTarget & {
    readonly registrationCertificate: string | null;
    readonly credentials: readonly Json[];
    readonly enforceRegistration: boolean;
  };
};
type Never = { readonly type: 'CreateTenantVerifier'; readonly data: { readonly at: string } };

const created = (tenantId: string, verifierId: string, createdAt: string): TenantVerifierEvent => ({ type: 'TenantVerifierCreated', data: { verifierId, tenantId, createdAt } });

/** The registration's rules: revision 1 with the tenant (implicit until the first change), then each PUT one revision. */
export const tenantVerifier = singletonKind(
  resourceKind<TenantVerifierEvent, Never, RegisterVerifier>({
    category,
    codec: TenantVerifierEvent,
    changeOf: verifierResourceChange,
    // Never asked for: revision 1 is recorded by singletonKind with the first change.
    create: { type: 'CreateTenantVerifier', created: ({ data: { at } }) => { throw new Error(`a tenant's verifier is not created on its own (${at})`); } },
    shared: shared.events,
    own: ({ data: { id, registrationCertificate, credentials, enforceRegistration, at } }) => ({
      type: 'TenantVerifierRegistered',
      data: { verifierId: id, registrationCertificate, credentials: [...credentials], enforceRegistration, registeredAt: at },
    }),
  }),
  created,
);

/** Revision 1 of the tenant's registration: nothing set, at the tenant's creation. */
export const initialVerifier = (tenantId: string, verifierId: string, tenantCreatedAt: string) =>
  implicitRevision(tenantVerifier, created(tenantId, verifierId, tenantCreatedAt));
