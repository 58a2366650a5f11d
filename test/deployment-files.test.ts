// The deployment files, checked without a container engine (none runs on our machines):
// compose.yaml and compose.dev.yaml against the Compose Specification's JSON schema (as dclint
// ships it) and dclint's rules, plus what docs/deployment.md promises of them (the cluster, two
// connectors sharing the key-encryption key and the blobs, health-gated starts, no secret in the
// files); the Dockerfile with the Docker language server's linter (dockerfile-utils) and, parsed
// by its parser (dockerfile-ast), for what the image must be (non-root, health-checked, both
// ports, the one build script, no secret in ENV or ARG). ops/compose-secrets.sh is run for real.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DCLinter } from 'dclint';
import { DockerfileParser, type Arg, type Copy, type Instruction, type JSONInstruction } from 'dockerfile-ast';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { isRight } from 'fp-ts/lib/Either.js';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/config/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

// ---- compose -------------------------------------------------------------------------------

type Compose = {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
};
type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  restart?: string;
};

/**
 * Compose's interpolation with no variable set, as `docker compose config` does on a machine with
 * no .env: `${VAR:-default}` and `${VAR-default}` give the default, `${VAR}` and `$VAR` nothing,
 * `$$` a `$`.
 */
const interpolated = (text: string): string =>
  text.replace(/\$\$|\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)/g, (match, _braced: string | undefined, fallback: string | undefined) =>
    match === '$$' ? '$' : (fallback ?? ''),
  );

/** A compose file as Compose reads it: YAML with merge keys (`<<`) resolved, then interpolated. */
const composeFile = (file: string): Compose => parseYaml(interpolated(read(file)), { merge: true }) as Compose;

const draft07 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json') as object;
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let compiled: ValidateFunction | undefined;
const composeSchema = (): ValidateFunction => (compiled ??= compileComposeSchema());
const compileComposeSchema = (): ValidateFunction => {
  // dclint keeps the Compose Specification's schema (compose-spec.json) in its package.
  const dclint = dirname(createRequire(import.meta.url).resolve('dclint/package.json'));
  const schema = JSON.parse(readFileSync(join(dclint, 'schemas', 'compose.schema.json'), 'utf8')) as { $schema: string };
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  // It names draft-07 by its https address, which Ajv knows by the http one.
  ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  return ajv.compile(schema);
};

// dclint's rules: those about safety and correctness as errors; its style rules (key and service
// order, quoting) off. `no-build-and-image` is off because the files build the image under the
// name the other services run it by.
const dclintRules = {
  'no-build-and-image': 0,
  'no-duplicate-container-names': 2,
  'no-duplicate-exported-ports': 2,
  'no-quotes-in-volumes': 2,
  'no-unbound-port-interfaces': 2,
  'no-version-field': 2,
  'require-project-name-field': 2,
  'require-quotes-in-ports': 0,
  'service-container-name-regex': 2,
  'service-dependencies-alphabetical-order': 0,
  'service-image-require-explicit-tag': 2,
  'service-keys-order': 0,
  'service-ports-alphabetical-order': 0,
  'services-alphabetical-order': 0,
  'top-level-properties-order': 0,
} as const;
interface LintResult {
  readonly filePath: string;
  readonly messages: readonly { readonly line: number; readonly rule: string; readonly message: string }[];
}
const dclint = (files: string[]): string[] =>
  (new DCLinter({ rules: dclintRules, quiet: true, debug: false, exclude: [] }).lintFiles(files, false) as LintResult[]).flatMap((result) =>
    result.messages.map((m) => `${result.filePath}:${m.line} ${m.rule}: ${m.message}`),
  );

/** Environment variable names that hold a secret (a `_FILE` variant names a file, not a secret). */
const SECRET_NAME = /(KEY|SECRET|PIN|PASSWORD|TOKEN)$/;

const envFiles = (service: Service): string[] => (service.env_file === undefined ? [] : [service.env_file].flat());
const milliseconds = (duration: string): number => {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`not a duration: ${duration}`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
};

for (const file of ['compose.yaml', 'compose.dev.yaml']) {
  test(`${file} is valid by the Compose Specification's JSON schema`, (t) => {
    const valid = composeSchema();
    t.true(valid(composeFile(file)), JSON.stringify(valid.errors, null, 2));
  });

  test(`${file} passes dclint`, (t) => {
    t.deepEqual(dclint([join(root, file)]), []);
  });

  test(`${file} holds no secret: they come from env files that git and the image build leave out`, (t) => {
    const compose = composeFile(file);
    const ignoredByGit = read('.gitignore').split('\n');
    const ignoredByDocker = read('.dockerignore').split('\n');
    for (const [name, service] of Object.entries(compose.services)) {
      t.deepEqual(Object.keys(service.environment ?? {}).filter((variable) => SECRET_NAME.test(variable)), [], name);
      // A connection string with credentials (esdb://user:password@...) would be a secret too.
      t.false(service.environment?.['EVENTSTORE_CONNECTION_STRING']?.includes('@') ?? false, name);
      for (const envFile of envFiles(service)) {
        t.true(ignoredByGit.includes(envFile), `${envFile} in .gitignore`);
        t.true(ignoredByDocker.some((pattern) => pattern === envFile || (pattern.startsWith('*') && envFile.endsWith(pattern.slice(1)))), `${envFile} in .dockerignore`);
      }
    }
    t.false(/whsec_|BEGIN .*PRIVATE KEY/.test(read(file)));
  });

  test(`${file}: every connector waits for healthy dependencies, publishes its management API on loopback only and stops after its shutdown timeout`, (t) => {
    const compose = composeFile(file);
    const connectors = Object.entries(compose.services).filter(([, s]) => s.image?.startsWith('eudi-connector:') && s.command === undefined);
    t.true(connectors.length > 0);
    for (const [name, service] of connectors) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const depended = compose.services[dependency]!;
        if (depended.restart === 'no') {
          // A one-shot service: done, and done well.
          t.is(condition, 'service_completed_successfully', `${name} -> ${dependency}`);
          continue;
        }
        t.is(condition, 'service_healthy', `${name} -> ${dependency}`);
        // A dependency is healthy only by a health check: its own, or the connector image's.
        t.true(depended.healthcheck?.test !== undefined || (depended.image?.startsWith('eudi-connector:') && depended.command === undefined), dependency);
      }
      t.true(envFiles(service).includes('connector.env'), name);
      for (const port of service.ports ?? []) {
        if (port.endsWith(':8081')) t.true(port.startsWith('127.0.0.1:'), `${name} ${port}`);
      }
      const shutdown = Number(service.environment?.['SHUTDOWN_TIMEOUT_MS']);
      t.true(Number.isInteger(shutdown), `${name} sets SHUTDOWN_TIMEOUT_MS`);
      // Requests in flight may take SHUTDOWN_TIMEOUT_MS; then the store closes: a few seconds more.
      t.true(milliseconds(service.stop_grace_period ?? '10s') >= shutdown + 5000, `${name}: stop_grace_period above SHUTDOWN_TIMEOUT_MS`);
      const config = loadConfig({ ...service.environment, DATA_KEY_ENCRYPTION_KEY: 'A'.repeat(43) });
      t.true(isRight(config), `${name}: ${JSON.stringify(config)}`);
    }
  });
}

test('compose.yaml runs a three-node KurrentDB cluster, each node health-checked with a volume of its own, insecure only as its comment says', (t) => {
  const compose = composeFile('compose.yaml');
  const nodes = Object.entries(compose.services).filter(([name]) => name.startsWith('kurrentdb-'));
  t.is(nodes.length, 3);
  t.is(new Set(nodes.map(([, node]) => node.image)).size, 1);
  t.regex(nodes[0]![1].image!, /^docker\.kurrent\.io\/kurrent-lts\/kurrentdb:\d+\.\d+\.\d+$/);
  const dataVolumes = nodes.map(([, node]) => node.volumes?.find((v) => v.endsWith(':/var/lib/kurrentdb'))?.split(':')[0]);
  t.is(new Set(dataVolumes).size, 3);
  for (const [name, node] of nodes) {
    t.is(node.environment?.['KURRENTDB_CLUSTER_SIZE'], '3', name);
    t.truthy(node.healthcheck?.test, name);
    // Each node seeds its gossip from the two others.
    t.is(node.environment?.['KURRENTDB_GOSSIP_SEED']?.split(',').length, 2, name);
    if (node.environment?.['KURRENTDB_INSECURE'] === 'true') t.regex(read('compose.yaml'), /# INSECURE MODE: /);
  }
});

test('compose.yaml runs two connectors over the cluster: the same key-encryption key, one shared blob directory, a DATA_DIR each', (t) => {
  const compose = composeFile('compose.yaml');
  const connectors = Object.entries(compose.services).filter(([name]) => name.startsWith('connector-'));
  t.is(connectors.length, 2);
  const [[, one], [, two]] = connectors as [[string, Service], [string, Service]];
  // The key-encryption key comes from the env file both read, so it is the same key.
  t.deepEqual(envFiles(one), envFiles(two));
  t.is(one.environment?.['EVENTSTORE_CONNECTION_STRING'], two.environment?.['EVENTSTORE_CONNECTION_STRING']);
  const connection = one.environment?.['EVENTSTORE_CONNECTION_STRING'] ?? '';
  for (const node of ['kurrentdb-1', 'kurrentdb-2', 'kurrentdb-3']) {
    t.true(connection.includes(`${node}:2113`), node);
    t.is(one.depends_on?.[node]?.condition, 'service_healthy');
  }
  const blobDir = one.environment?.['BLOB_DIR'];
  t.is(blobDir, two.environment?.['BLOB_DIR']);
  const mountedAt = (service: Service, path: string | undefined) => service.volumes?.find((v) => v.endsWith(`:${path}`))?.split(':')[0];
  t.truthy(mountedAt(one, blobDir));
  t.is(mountedAt(one, blobDir), mountedAt(two, blobDir));
  const dataDirOf = (service: Service) => mountedAt(service, '/var/lib/eudi-connector');
  t.truthy(dataDirOf(one));
  t.not(dataDirOf(one), dataDirOf(two));
  t.is(one.environment?.['PUBLIC_URL'], two.environment?.['PUBLIC_URL']);
  // One access and one issuer identity, in a volume both mount, made once before either starts.
  for (const variable of ['ACCESS_CERTIFICATE_FILE', 'ACCESS_KEY_FILE', 'ISSUER_CERTIFICATE_FILE', 'ISSUER_KEY_FILE']) {
    const path = one.environment?.[variable];
    t.truthy(path, variable);
    t.is(path, two.environment?.[variable]);
    const mount = one.volumes?.find((v) => path?.startsWith(`${v.split(':')[1]}/`));
    t.truthy(mount, `${variable} is on a volume`);
    t.true(two.volumes?.includes(mount!), `${variable} on the same volume in both`);
    const maker = Object.values(compose.services).find((s) => s.restart === 'no' && s.volumes?.includes(mount!.replace(/:ro$/, '')));
    t.truthy(maker, `a one-shot service makes ${variable}`);
  }
});

test('compose.dev.yaml runs one connector on the embedded store, its DATA_DIR a volume', (t) => {
  const compose = composeFile('compose.dev.yaml');
  const connector = compose.services['connector']!;
  t.is(connector.environment?.['EVENTSTORE_CONNECTION_STRING'], undefined);
  t.truthy(connector.volumes?.find((v) => v.endsWith(':/var/lib/eudi-connector')));
});

test('dclint finds what it should: a management port on every interface, an image without a tag', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'compose-lint-'));
  try {
    const file = join(dir, 'compose.yaml');
    writeFileSync(file, 'name: bad\nservices:\n  connector:\n    image: eudi-connector\n    ports:\n      - "8081:8081"\n');
    const found = dclint([file]).join('\n');
    t.regex(found, /no-unbound-port-interfaces/);
    t.regex(found, /service-image-require-explicit-tag/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the Compose schema refuses what Compose would: an unknown service key, a wrong type', (t) => {
  const valid = composeSchema();
  t.false(valid({ services: { connector: { image: 'a:1', restart_policy: 'always' } } }));
  t.false(valid({ services: { connector: { image: 'a:1', ports: 8081 } } }));
});

test('ops/compose-secrets.sh writes private env files whose values the connector accepts, the same callback secret in both, and never overwrites them', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'compose-secrets-'));
  try {
    const run = () => spawnSync('sh', [join(root, 'ops', 'compose-secrets.sh'), dir], { encoding: 'utf8' });
    const first = run();
    t.is(first.status, 0, first.stderr);
    const envOf = (file: string) =>
      Object.fromEntries(readFileSync(join(dir, file), 'utf8').trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const connector = envOf('connector.env');
    const receiver = envOf('receiver.env');
    t.deepEqual(Object.keys(connector).sort(), ['BOOTSTRAP_API_KEY', 'CALLBACK_SECRET', 'DATA_KEY_ENCRYPTION_KEY']);
    t.deepEqual(receiver, { CALLBACK_SECRET: connector['CALLBACK_SECRET'] });
    for (const file of ['connector.env', 'receiver.env']) t.is(statSync(join(dir, file)).mode & 0o777, 0o600, file);
    const compose = composeFile('compose.yaml');
    t.true(isRight(loadConfig({ ...compose.services['connector-1']!.environment, ...connector })));
    const before = readFileSync(join(dir, 'connector.env'), 'utf8');
    const again = run();
    t.is(again.status, 1);
    t.regex(again.stderr, /exists; remove it first/);
    t.is(readFileSync(join(dir, 'connector.env'), 'utf8'), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- Dockerfile ----------------------------------------------------------------------------

const dockerfileText = read('Dockerfile');
const dockerfile = DockerfileParser.parse(dockerfileText);

/** The instructions of each stage, from its FROM on. */
const stages = (): Instruction[][] =>
  dockerfile.getInstructions().reduce<Instruction[][]>((all, instruction) => {
    if (instruction.getKeyword() === 'FROM') all.push([instruction]);
    else all.at(-1)?.push(instruction);
    return all;
  }, []);
const finalStage = (): Instruction[] => stages().at(-1)!;
const ofKind = (instructions: Instruction[], keyword: string) => instructions.filter((i) => i.getKeyword() === keyword);
const jsonOf = (instruction: Instruction): string[] => (instruction as JSONInstruction).getJSONStrings().map((s) => s.getJSONValue());
const words = (instruction: Instruction): string[] => instruction.getArguments().map((a) => a.getValue());

test('the Dockerfile passes the Docker language server\'s linter', (t) => {
  t.deepEqual(lintDockerfile(dockerfileText), []);
});

test('the Dockerfile linter finds what it should: an unknown instruction, a bad flag value', (t) => {
  const found = lintDockerfile('FROM node:20-bookworm-slim\nEXPOSE eighty\nHEALTHCHECK --interval=soon CMD node x.js\n');
  t.true(found.length >= 2, JSON.stringify(found));
});

test('the image is built in one stage and run in another of the same Node and Debian release, by the one build script', (t) => {
  const all = stages();
  t.is(all.length, 2);
  const [build, runtime] = all as [Instruction[], Instruction[]];
  const [buildFrom, runtimeFrom] = dockerfile.getFROMs();
  t.is(buildFrom!.getImageName(), 'node');
  t.is(runtimeFrom!.getImageName(), 'node');
  // The same Node (one ARG for both) on the same Debian release: native modules built in one run in the other.
  t.is(buildFrom!.getImageTag(), '${NODE_VERSION}-bookworm');
  t.is(runtimeFrom!.getImageTag(), '${NODE_VERSION}-bookworm-slim');
  const runs = ofKind(build, 'RUN').map((run) => words(run).join(' '));
  t.true(runs.includes('ops/build-release.sh'));
  // The steps are the script's, not repeated here.
  t.deepEqual(runs.filter((run) => /npm (ci|run|prune)|tsc/.test(run)), []);
  t.not(statSync(join(root, 'ops', 'build-release.sh')).mode & 0o100, 0, 'the script is executable');
  const copied = ofKind(runtime, 'COPY').map((copy) => [(copy as Copy).getFromFlag()?.getValue(), jsonOf(copy)[0] ?? words(copy)[0]]);
  t.deepEqual(copied, [
    ['build', '/build/package.json'],
    ['build', '/build/node_modules'],
    ['build', '/build/dist'],
  ]);
});

test('the image runs as a non-root user, its DATA_DIR a volume, both ports exposed, health-checked on /health/ready by node', (t) => {
  const runtime = finalStage();
  const users = ofKind(runtime, 'USER');
  t.is(users.length, 1);
  const [user] = words(users[0]!)[0]!.split(':');
  t.regex(user!, /^[1-9]\d*$/, 'a numeric uid, not root');
  const env = Object.fromEntries(dockerfile.getENVs().flatMap((e) => e.getProperties().map((p) => [p.getName(), p.getValue()])));
  const volumes = ofKind(runtime, 'VOLUME').flatMap(jsonOf);
  t.true(volumes.includes(env['DATA_DIR']!), 'DATA_DIR is a volume');
  t.true(volumes.includes(env['XDG_CONFIG_HOME']!), 'the key file directory is a volume apart from DATA_DIR');
  const defaults = loadConfig({});
  if (!isRight(defaults)) return t.fail();
  t.deepEqual(ofKind(runtime, 'EXPOSE').flatMap(words).sort(), [String(defaults.right.publicPort), String(defaults.right.managementPort)].sort());
  const [healthcheck] = ofKind(runtime, 'HEALTHCHECK');
  const probe = JSON.parse(words(healthcheck!).slice(words(healthcheck!).indexOf('CMD') + 1).join(' ')) as string[];
  t.deepEqual(probe, ['node', 'dist/ops/healthcheck.js']);
  t.regex(read('ops/healthcheck.ts'), /\/health\/ready/);
  t.deepEqual(jsonOf(ofKind(runtime, 'CMD')[0]!), ['node', 'dist/src/main.js']);
  t.deepEqual(jsonOf(ofKind(runtime, 'ENTRYPOINT')[0]!), ['tini', '--']);
});

test('the image stops on SIGTERM, which main handles by draining within SHUTDOWN_TIMEOUT_MS', (t) => {
  t.deepEqual(ofKind(finalStage(), 'STOPSIGNAL').flatMap(words), ['SIGTERM']);
  t.regex(read('src/main.ts'), /'SIGTERM'/);
});

test('no ENV or ARG of the Dockerfile holds a secret', (t) => {
  const names = [
    ...dockerfile.getENVs().flatMap((e) => e.getProperties().map((p) => p.getName())),
    ...ofKind(dockerfile.getInstructions(), 'ARG').flatMap((a) => (a as Arg).getProperty()?.getName() ?? []),
  ];
  t.true(names.length > 0);
  t.deepEqual(names.filter((name) => SECRET_NAME.test(name)), []);
});

test('the image build leaves out installed and built output, the store, secrets and history', (t) => {
  const ignored = read('.dockerignore').split('\n');
  for (const entry of ['.git', 'node_modules', 'dist', 'data', '*.env']) t.true(ignored.includes(entry), entry);
});
