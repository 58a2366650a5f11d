// What a message may echo of a value someone gave: a URL's user-info (`user:password@`) is
// replaced, whatever else the message says, so a password mistyped into CALLBACK_URL, `--url` or a
// request body reaches no terminal, log, CI output or error answer. Used by the configuration's
// errors, the ops tool's and every error answer's excerpts (./excerpt.ts).

/** `scheme://` and the authority up to its last `@` (the user-info) before any `?` or `#`. */
const USER_INFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^?#\s]*@/g;

const REDACTED_USER_INFO = '[user-info removed]';

/** `text` with the user-info of every URL in it replaced. */
export const withoutUserInfo = (text: string): string => text.replace(USER_INFO, `$1${REDACTED_USER_INFO}@`);
