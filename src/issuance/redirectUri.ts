// Which redirect_uri a pushed authorization request may name. The user's browser is sent there
// with the code, so a scheme the browser would run or render itself (`javascript:`, `data:`,
// `vbscript:`, `file:`, `blob:`) would make this issuer's redirect a script or a page of the
// wallet's choosing. Wallets register claimed https URLs, private-use schemes
// (`eu.europa.ec.wallet:/cb`, RFC 8252 section 7.1) and loopback http (RFC 8252 section 7.3);
// those stay allowed. Plain http to any other host would carry the code in the clear (RFC 9700
// section 4.1.3 / 2.6: no http redirect URIs but a native app's loopback). RFC 6749 section 3.1.2
// forbids a fragment.

/** Schemes a browser executes or renders instead of handing them to an app. */
const BROWSER_SCHEMES: ReadonlySet<string> = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** The loopback hosts a native app's http redirect may name (RFC 8252 section 7.3, and `localhost` as section 8.3 tolerates). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why `value` cannot be a redirect_uri, or undefined when it can. */
export const redirectUriProblem = (value: string): string | undefined => {
  // The URL parser drops tabs and newlines and trims control characters and spaces, as browsers do
  // ("java\tscript:" is javascript:); a redirect_uri has none (RFC 3986), so any of them is refused outright.
  if (/[\x00-\x20\x7f]/.test(value)) return 'redirect_uri must not contain spaces or control characters.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'redirect_uri must be an absolute URI without a fragment.';
  }
  if (url.hash !== '' || value.includes('#')) return 'redirect_uri must be an absolute URI without a fragment.';
  // `protocol` is lower case whatever the request's case was.
  if (BROWSER_SCHEMES.has(url.protocol)) return `redirect_uri must not use the ${url.protocol} scheme: a browser would run or render it.`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'redirect_uri may use http: only for a loopback address (RFC 8252 section 7.3); use https.';
  return undefined;
};
