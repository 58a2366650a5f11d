// The console's static files at /console/ on the management listener, served without an API key
// (they hold nothing of any tenant: the page asks for the key and sends it only in the
// Authorization header of its own requests). The HTML and CSS come from the repository's
// console/ folder, the scripts from its TypeScript compiled by `npm run build` (dist/console/):
// nothing from elsewhere, so the console works offline. Every answer forbids framing and inline
// script or style.
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { HttpError, notFound } from '../http/problem.js';

export const CONSOLE_PATH = '/console/';

/** No inline script or style, nothing but this origin, never in a frame. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SOURCE_DIRECTORY = new URL('../../../console/', import.meta.url);
const BUILT_DIRECTORY = new URL('../../console/', import.meta.url);

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
};

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** Every file the console serves, read once at start: a fixed list, so no path from a request reaches the file system. */
const loadAssets = (): ReadonlyMap<string, Asset> => {
  const assets = new Map<string, Asset>();
  const add = (directory: URL, extensions: readonly string[]): void => {
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      return;
    }
    for (const name of names) {
      const extension = extname(name);
      if (extensions.includes(extension)) assets.set(name, { type: TYPES[extension]!, body: readFileSync(new URL(name, directory)) });
    }
  };
  add(SOURCE_DIRECTORY, ['.html', '.css', '.png']);
  add(BUILT_DIRECTORY, ['.js']);
  return assets;
};

const securityHeaders = (ctx: Context): void => {
  ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-cache');
};

export const consoleStaticRouter = (): Router => {
  const assets = loadAssets();
  const send = (ctx: Context, name: string): void => {
    const asset = assets.get(name);
    if (!asset) throw new HttpError(notFound('The console has no such file.'));
    securityHeaders(ctx);
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
  const router = new Router();
  router.get(CONSOLE_PATH, (ctx) => send(ctx, 'index.html'));
  router.get(`${CONSOLE_PATH}:asset`, (ctx) => send(ctx, String(ctx.params['asset'])));
  return router;
};
