// The layers, bottom to top; an import may only point down or sideways within a layer:
//   streams/       event contracts and deciders: no I/O, nothing from above
//   projections/   read models: pure functions of recorded events, over streams/
//   shared src/    the store, the read side (src/readside/, or its files at the root of src/), HTTP
//                  plumbing, crypto, logging, metrics, configuration: every folder or root file of
//                  src/ that is not a feature, the assembly or an entry point
//   features       src/{verification,issuance,resources,tenancy,callbacks,trust,console}/: routes, OpenAPI
//                  fragments, background work
//   assembly       src/app/: composes the features into the service and its OpenAPI document
//   entry points   src/main.ts, src/workers/
// test/, bench/, demo/, ops/ and wallet/ stand outside the layers and may use any of them.
const FEATURES = '^src/(verification|issuance|resources|tenancy|callbacks|trust|console)/';
const ASSEMBLY = '^src/app/';
const ENTRY = '^src/(main[.]ts$|workers/)';
const ABOVE_SHARED = [FEATURES, ASSEMBLY, ENTRY];
// The resources feature's use cases (plain inputs, Either answers) and its route modules.
const RESOURCES_USE_CASES =
  '^src/resources/(create|createDraft|createFile|createPresentation|createSchema|update|updateDraft|exportDraft|importCredential|blobUploads|draftValues|didDocument|sendDidcommMessage|fileSupportRequest|readSupportRequests|createSigningKey|certifySigningKey|activateSigningKey|signingKeysKind|createCredentialConfiguration|replaceCredentialConfiguration|credentialConfigurationsKind|readSingleton|updateSingleton|replaceSettings|registerVerifier)[.]ts$';
const RESOURCES_ROUTES = '^src/resources/(apiKeys|credentials|didcommMessages|drafts|feature|files|presentations|routes|schemas|supportRequests|tenantDid|uploads|signingKeys|credentialConfigurations|singletons|tenantSettings|tenantVerifier)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'streams-stand-alone',
      comment: 'streams/ holds the event contracts; it builds on streams/kernel.ts, never on src/ or projections/.',
      severity: 'error',
      from: { path: '^streams/' },
      to: { path: '^(src|projections)/' },
    },
    {
      name: 'projections-on-streams',
      comment: 'A projection is a pure function of recorded events over streams/; it declares what it needs of the database it reads (SqlReader).',
      severity: 'error',
      from: { path: '^projections/' },
      to: { dependencyTypesNot: ['core', 'npm'], pathNot: '^(streams|projections)/' },
    },
    {
      name: 'shared-below-features',
      comment: 'Shared code (store, read side, HTTP plumbing, crypto, log, metrics, configuration) imports no feature and no assembly.',
      severity: 'error',
      from: { path: '^src/', pathNot: ABOVE_SHARED },
      to: { path: ABOVE_SHARED },
    },
    {
      name: 'features-below-assembly',
      comment: 'Features are composed by src/app/; they never import it, nor an entry point.',
      severity: 'error',
      from: { path: FEATURES },
      to: { path: [ASSEMBLY, ENTRY] },
    },
    {
      name: 'assembly-below-entry-points',
      severity: 'error',
      from: { path: ASSEMBLY },
      to: { path: ENTRY },
    },
    {
      name: 'verifier-apart-from-issuer',
      comment: "The verifier's side (verification, its status check) does not depend on the issuer's.",
      severity: 'error',
      from: { path: '^src/verification/' },
      to: { path: '^src/issuance/' },
    },
    {
      name: 'verification-koa-in-routes-only',
      comment: "A verification step's use case takes plain inputs: only route modules (route.ts, routes.ts, walletRoute.ts) import koa or @koa/router.",
      severity: 'error',
      from: { path: '^src/verification/', pathNot: '(^|/)(route|routes|walletRoute)[.]ts$' },
      to: { path: 'node_modules/((@types/)?koa|@koa/router|@types/koa__router)/' },
    },
    {
      name: 'verification-formats-apart',
      comment: 'A presented-credential format (src/verification/formats/<format>/) imports no other format.',
      severity: 'error',
      from: { path: '^src/verification/formats/([^/]+)/' },
      to: { path: '^src/verification/formats/[^/]+/', pathNot: '^src/verification/formats/$1/' },
    },
    {
      name: 'verification-formats-behind-registry',
      comment: 'Steps and shared modules see formats only through PresentedCredentialVerifier; only the registry (formats/registry.ts) imports a format.',
      severity: 'error',
      from: { path: '^src/verification/', pathNot: '^src/verification/formats/' },
      to: { path: '^src/verification/formats/[^/]+/' },
    },
    {
      name: 'verification-shared-below-steps',
      comment: "What the steps share (src/verification/*.ts) imports no step folder; only the feature's composition (feature.ts, routes.ts) does.",
      severity: 'error',
      from: { path: '^src/verification/[^/]+[.]ts$', pathNot: '^src/verification/(feature|routes)[.]ts$' },
      to: { path: '^src/verification/(createRequest|requestObject|response|dcApi)/' },
    },
    {
      name: 'issuance-koa-only-in-routes',
      comment: 'An issuance step is a use case apart from its HTTP edge: only route modules (and the feature that mounts them) import koa or @koa/router.',
      severity: 'error',
      from: { path: '^src/issuance/', pathNot: ['(^|/)(route|routes|[a-zA-Z]+Route|[a-zA-Z]+Routes)[.]ts$', '^src/issuance/feature[.]ts$'] },
      to: { path: 'node_modules/(koa|@koa/router)/' },
    },
    {
      name: 'issuance-formats-behind-registry',
      comment: 'A credential format (src/issuance/formats/<format>/) is reached only through the registry; steps sign through src/issuance/credentialSigner.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/issuance/formats/registry[.]ts$', '^src/issuance/formats/[^/]+/'] },
      to: { path: '^src/issuance/formats/[^/]+/' },
    },
    {
      name: 'issuance-format-apart-from-format',
      comment: "A credential format does not import another format's module.",
      severity: 'error',
      from: { path: '^src/issuance/formats/([^/]+)/' },
      to: { path: '^src/issuance/formats/', pathNot: ['^src/issuance/formats/$1/'] },
    },
    {
      name: 'resources-use-cases-without-http',
      comment:
        'A resource use case takes plain inputs and answers an Either: it imports neither koa nor @koa/router, nor a route module of the feature (which would bring them).',
      severity: 'error',
      from: { path: RESOURCES_USE_CASES },
      to: { path: ['node_modules/((@types/)?koa|@koa/router|@types/koa__router)/', RESOURCES_ROUTES] },
    },
    {
      name: 'no-circular-modules',
      severity: 'error',
      from: { path: '^(src|streams|projections)/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'A folder may not both import another folder and be imported by it, directly or round a longer loop.',
      severity: 'error',
      scope: 'folder',
      // src/ itself included. dependency-cruiser counts a folder's subfolders as part of it, so for
      // src/ this keeps the whole of it out of a loop with streams/ or projections/; a loop between
      // a file at the root of src/ and a folder beneath it stays out of this rule's sight.
      from: { path: '^(src|streams|projections)(/|$)' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type from a feature is still a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
