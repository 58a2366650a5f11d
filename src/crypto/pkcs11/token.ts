// A PKCS#11 token (an HSM, or SoftHSM2 to try it out) reached through its module with pkcs11js:
// the module loaded and initialised once per process, the token found by label or slot, and a
// small pool of logged-in sessions, so signing and key wrapping are not serialised behind one
// session (a PKCS#11 session runs one operation at a time).
//
// A session the token drops (closed underneath the connector, the token logged out, removed or
// answering errors) is thrown away; the next operation opens a fresh one and logs in again, so
// the connector recovers by itself once the token answers again. Until then operations fail with
// KeysUnavailable. The PIN never appears in a message.
import { createRequire } from 'node:module';
import type * as Pkcs11 from 'pkcs11js';
import { KeysUnavailable } from '../keyStore.js';


/** Why the token cannot be opened at start; the message is one line naming the variable to fix. */
export class TokenProblem extends Error {
  override readonly name = 'TokenProblem';
}

export interface TokenOptions {
  /** Path of the PKCS#11 library. */
  readonly module: string;
  readonly tokenLabel?: string | undefined;
  readonly slot?: number | undefined;
  readonly pin: string;
  /** Sessions kept open at most. */
  readonly sessions: number;
}

export type Pkcs11Module = typeof Pkcs11;
export type Handle = Pkcs11.Handle;

/** A logged-in session and the object handles found in it, by label and class. */
export interface Session {
  readonly handle: Handle;
  readonly objects: Map<string, Handle>;
}

export interface Token {
  readonly pkcs11: Pkcs11Module;
  readonly module: Pkcs11.PKCS11;
  readonly slot: Handle;
  /** Runs `use` on a pooled session; any PKCS#11 failure drops the session and becomes KeysUnavailable. */
  withSession<T>(use: (session: Session) => Promise<T>): Promise<T>;
  /** Sessions open now (idle or in use). */
  openSessions(): number;
  /** Closes the sessions and finalises the module. */
  close(): void;
}

const require = createRequire(import.meta.url);

/** pkcs11js, loaded only when a token is used (KEY_STORE=file never needs the native module). */
export const loadPkcs11 = (): Pkcs11Module => {
  try {
    return require('pkcs11js') as Pkcs11Module;
  } catch (err) {
    throw new TokenProblem(`KEY_STORE: pkcs11 needs the npm package pkcs11js, which did not load (${(err as Error).message.split('\n')[0] ?? ''})`);
  }
};

/** The name of a PKCS#11 return value (CKR_*), for messages. */
export const returnValueName = (pkcs11: Pkcs11Module, err: unknown): string => {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'number') return (err as Error).message?.split('\n')[0] ?? String(err);
  const name = Object.entries(pkcs11).find(([key, value]) => key.startsWith('CKR_') && value === code)?.[0];
  return name ?? `CKR 0x${code.toString(16)}`;
};

const sessionGone = (pkcs11: Pkcs11Module, err: unknown): boolean => {
  const code = (err as { code?: unknown }).code;
  return code === pkcs11.CKR_SESSION_HANDLE_INVALID || code === pkcs11.CKR_SESSION_CLOSED || code === pkcs11.CKR_USER_NOT_LOGGED_IN;
};

const slotNumber = (slot: Handle): number => (slot.length >= 8 ? Number(slot.readBigUInt64LE(0)) : slot.readUInt32LE(0));

const findSlot = (pkcs11: Pkcs11Module, module: Pkcs11.PKCS11, options: TokenOptions): Handle => {
  const slots = module.C_GetSlotList(true);
  if (options.slot !== undefined) {
    const slot = slots.find((s) => slotNumber(s) === options.slot);
    if (!slot) throw new TokenProblem(`PKCS11_SLOT: no token in slot ${options.slot} of ${options.module}`);
    return slot;
  }
  const labels = slots.flatMap((s) => {
    const info = module.C_GetTokenInfo(s);
    return (info.flags & pkcs11.CKF_TOKEN_INITIALIZED) !== 0 ? [{ slot: s, label: info.label.trim() }] : [];
  });
  const matching = labels.filter((l) => l.label === options.tokenLabel);
  if (matching.length === 0) {
    throw new TokenProblem(`PKCS11_TOKEN_LABEL: no token labelled ${JSON.stringify(options.tokenLabel)} in ${options.module} (tokens: ${labels.map((l) => JSON.stringify(l.label)).join(', ') || 'none'})`);
  }
  if (matching.length > 1) throw new TokenProblem(`PKCS11_TOKEN_LABEL: ${matching.length} tokens are labelled ${JSON.stringify(options.tokenLabel)}: set PKCS11_SLOT instead`);
  return matching[0]!.slot;
};

// pkcs11js binds one process-wide module state per library: initialised once, shared by every Token.
const initialised = new Map<string, { module: Pkcs11.PKCS11; users: number }>();

const initialise = (pkcs11: Pkcs11Module, path: string): Pkcs11.PKCS11 => {
  const known = initialised.get(path);
  if (known) {
    known.users += 1;
    return known.module;
  }
  const module = new pkcs11.PKCS11();
  try {
    module.load(path);
  } catch (err) {
    throw new TokenProblem(`PKCS11_MODULE: ${path} cannot be loaded as a PKCS#11 library (${(err as Error).message.split('\n')[0] ?? ''})`);
  }
  try {
    // Async operations run on libuv's threads, beside calls from the main thread: the module must lock.
    module.C_Initialize({ flags: pkcs11.CKF_OS_LOCKING_OK });
  } catch (err) {
    if ((err as { code?: unknown }).code !== pkcs11.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
      module.close();
      throw new TokenProblem(`PKCS11_MODULE: ${path} does not initialise (${returnValueName(pkcs11, err)})`);
    }
  }
  initialised.set(path, { module, users: 1 });
  return module;
};

const release = (path: string): void => {
  const known = initialised.get(path);
  if (!known) return;
  known.users -= 1;
  if (known.users > 0) return;
  initialised.delete(path);
  try {
    known.module.C_Finalize();
  } finally {
    known.module.close();
  }
};

/**
 * Opens the token and logs in once, so a wrong PIN or an unknown token stops the start with one
 * line (TokenProblem). Sessions are opened as operations need them, up to `options.sessions`.
 */
export const openToken = (options: TokenOptions): Token => {
  const pkcs11 = loadPkcs11();
  const module = initialise(pkcs11, options.module);
  let slot: Handle;
  try {
    slot = findSlot(pkcs11, module, options);
  } catch (err) {
    release(options.module);
    throw err instanceof TokenProblem ? err : new TokenProblem(`PKCS11_MODULE: ${options.module} lists no slots (${returnValueName(pkcs11, err)})`);
  }

  const login = (handle: Handle): void => {
    try {
      module.C_Login(handle, pkcs11.CKU_USER, options.pin);
    } catch (err) {
      if ((err as { code?: unknown }).code !== pkcs11.CKR_USER_ALREADY_LOGGED_IN) throw err;
    }
  };
  const openSession = (): Session => {
    const handle = module.C_OpenSession(slot, pkcs11.CKF_SERIAL_SESSION | pkcs11.CKF_RW_SESSION);
    try {
      login(handle);
    } catch (err) {
      closeQuietly(handle);
      throw err;
    }
    return { handle, objects: new Map() };
  };
  const closeQuietly = (handle: Handle): void => {
    try {
      module.C_CloseSession(handle);
    } catch {
      // Already gone with the token: nothing to close.
    }
  };

  // The start's check: the token answers and takes the PIN.
  let first: Session;
  try {
    first = openSession();
  } catch (err) {
    release(options.module);
    const code = (err as { code?: unknown }).code;
    const why = code === pkcs11.CKR_PIN_INCORRECT || code === pkcs11.CKR_PIN_LEN_RANGE ? 'the token refuses the PIN' : `the token refuses the login (${returnValueName(pkcs11, err)})`;
    throw new TokenProblem(`PKCS11_PIN: ${why}`);
  }

  const idle: Session[] = [first];
  const waiting: ((session: Session | undefined) => void)[] = [];
  let open = 1;
  let closed = false;

  const acquire = async (): Promise<Session> => {
    if (closed) throw new KeysUnavailable('the key store is closed');
    const ready = idle.pop();
    if (ready) return ready;
    if (open < options.sessions) {
      open += 1;
      try {
        return openSession();
      } catch (err) {
        open -= 1;
        throw new KeysUnavailable(`the token does not open a session (${returnValueName(pkcs11, err)})`);
      }
    }
    const handed = await new Promise<Session | undefined>((resolve) => waiting.push(resolve));
    return handed ?? acquire();
  };
  const giveBack = (session: Session | undefined): void => {
    const next = waiting.shift();
    if (next) next(session);
    else if (session) idle.push(session);
  };
  const drop = (session: Session): void => {
    closeQuietly(session.handle);
    open -= 1;
    // A waiter opens its own session now that there is room.
    giveBack(undefined);
  };

  return {
    pkcs11,
    module,
    slot,
    async withSession(use) {
      // A kept session the token has dropped meanwhile is replaced once by a fresh one.
      for (let attempt = 0; ; attempt += 1) {
        const session = await acquire();
        try {
          const result = await use(session);
          giveBack(session);
          return result;
        } catch (err) {
          drop(session);
          if (err instanceof KeysUnavailable) throw err;
          if (attempt === 0 && sessionGone(pkcs11, err)) continue;
          throw new KeysUnavailable(`the token failed (${returnValueName(pkcs11, err)})`, { cause: err });
        }
      }
    },
    openSessions: () => open,
    close() {
      if (closed) return;
      closed = true;
      for (const session of idle.splice(0)) closeQuietly(session.handle);
      for (const waiter of waiting.splice(0)) waiter(undefined);
      release(options.module);
    },
  };
};
