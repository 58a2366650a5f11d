// The links of a Markdown document and what is wrong with them, for test/docs-links.test.ts. The
// documentation must stand alone in a clone: every link is relative, resolves to a file inside the
// repository, and its anchor (if any) to a heading of that file. Text inside code (fenced blocks,
// inline spans) renders as text, not as a link, so URLs there are identifiers and examples, and
// are not links; a URL written in prose is, since renderers link it by themselves.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/** The document with fenced code blocks and inline code spans blanked, line numbers kept. */
const prose = (markdown: string): string[] => {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      return '';
    }
    if (opener !== undefined) {
      fence = opener;
      return '';
    }
    return line.replace(/(`+)[^`]*?\1/g, '');
  });
};

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export const headingSlugs = (markdown: string): Set<string> => {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      continue;
    }
    if (opener !== undefined) {
      fence = opener;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
};

export type Link = { line: number; target: string };

/** Inline links and images, reference definitions, autolinks, and bare URLs in prose. */
export const linksOf = (markdown: string): Link[] => {
  const links: Link[] = [];
  prose(markdown).forEach((text, index) => {
    const line = index + 1;
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: m[1] ?? '' });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text);
    if (definition !== null) links.push({ line, target: definition[1] ?? '' });
    for (const m of text.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi)) links.push({ line, target: m[1] ?? '' });
    const outsideLinks = (definition === null ? text : '').replace(/\]\([^)]*\)/g, '](').replace(/<[^>\s]*>/g, '');
    for (const m of outsideLinks.matchAll(/\b(?:https?:\/\/|www\.)\S+/gi)) links.push({ line, target: m[0] });
  });
  return links;
};

/** What is wrong with each link of `file`, one message each; none when every link resolves. */
export const linkProblems = (root: string, file: string): string[] => {
  const markdown = readFileSync(file, 'utf8');
  const where = (link: Link) => `${relative(root, file)}:${link.line}: ${link.target}`;
  const problems: string[] = [];
  for (const link of linksOf(markdown)) {
    const { target } = link;
    if (target === '') {
      problems.push(`${where(link)}: empty link`);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || /^www\./i.test(target)) {
      problems.push(`${where(link)}: points outside the repository (absolute URL)`);
      continue;
    }
    if (target.startsWith('/')) {
      problems.push(`${where(link)}: absolute path; write it relative to the document`);
      continue;
    }
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved = path === '' ? file : resolve(dirname(file), path);
    const inside = relative(root, resolved);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      problems.push(`${where(link)}: points outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${where(link)}: no such file`);
      continue;
    }
    if (anchor === null) continue;
    if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
      problems.push(`${where(link)}: an anchor into something that is not a Markdown file`);
      continue;
    }
    if (!headingSlugs(readFileSync(resolved, 'utf8')).has(anchor)) problems.push(`${where(link)}: no heading with that anchor`);
  }
  return problems;
};
