// The documentation stands alone in a clone: every link in README.md and docs/*.md resolves to a
// file of the repository (and to a heading, when it names one), none points outside it, and the
// README leads to every page of docs/.
import test from 'ava';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headingSlugs, linkProblems, linksOf } from './support/markdownLinks.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort();
const documents = [join(root, 'README.md'), ...docs.map((name) => join(root, 'docs', name))];

test('every link in README.md and docs/ resolves inside the repository, anchors included', (t) => {
  t.true(docs.length > 0, 'docs/ holds the documentation');
  t.deepEqual(documents.flatMap((file) => linkProblems(root, file)), []);
});

test('the README links to every page of docs/', (t) => {
  const linked = new Set(linksOf(readFileSync(join(root, 'README.md'), 'utf8')).map((link) => link.target.split('#')[0]));
  t.deepEqual(docs.filter((name) => !linked.has(`docs/${name}`)), []);
});

test('heading anchors are GitHub slugs: punctuation dropped, case folded, repeats numbered', (t) => {
  const slugs = headingSlugs('# Trusted lists (`X509_TRUST_RESOLUTION_MODE=lotl`)\n## Verifier: the status\n## Notes\n### Notes\n```\n# not a heading\n```\n');
  t.deepEqual([...slugs], ['trusted-lists-x509_trust_resolution_modelotl', 'verifier-the-status', 'notes', 'notes-1']);
});

test('broken, escaping and absolute links are each reported; URLs inside code are not links', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-links-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs', 'target.md'), '# Target\n\n## A section\n');
  writeFileSync(join(dir, 'outside.md'), '# Outside\n');
  const page = [
    '# Page',
    '[fine](target.md#a-section) and [here](#page)',
    '[missing](nowhere.md)',
    '[bad anchor](target.md#no-such-section)',
    '[escapes](../../etc/passwd)',
    '[web](https://example.org/spec)',
    'see https://example.org/raw in prose, <mailto:someone@example.org>',
    '[root](/docs/target.md)',
    '`https://uri.example/identifier` in code',
    '```sh',
    'curl -s https://example.org/ [not](a-link.md)',
    '```',
    '[ref]: https://example.org/ref',
  ].join('\n');
  writeFileSync(join(dir, 'docs', 'page.md'), page);
  const problems = linkProblems(dir, join(dir, 'docs', 'page.md'));
  t.deepEqual(problems, [
    'docs/page.md:3: nowhere.md: no such file',
    'docs/page.md:4: target.md#no-such-section: no heading with that anchor',
    'docs/page.md:5: ../../etc/passwd: points outside the repository',
    'docs/page.md:6: https://example.org/spec: points outside the repository (absolute URL)',
    'docs/page.md:7: mailto:someone@example.org: points outside the repository (absolute URL)',
    'docs/page.md:7: https://example.org/raw: points outside the repository (absolute URL)',
    'docs/page.md:8: /docs/target.md: absolute path; write it relative to the document',
    'docs/page.md:13: https://example.org/ref: points outside the repository (absolute URL)',
  ]);
  t.deepEqual(linkProblems(dir, join(dir, 'docs', 'target.md')), []);
  writeFileSync(join(dir, 'docs', 'up.md'), '[one level up, still inside](../outside.md)\n');
  t.deepEqual(linkProblems(dir, join(dir, 'docs', 'up.md')), []);
});
