// Bounds for work that must end: a wedge (a loop that never finishes, a promise never settled)
// fails the test with a message instead of hanging it. The bounds are generous; no test asserts
// how long anything took.

/** `work`, or a rejection naming `what` once `ms` have passed. */
export const bounded = async <T>(work: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const wedged = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} (still not done after ${ms} ms)`)), ms);
  });
  try {
    return await Promise.race([work, wedged]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Polls `check` until it holds, at most `attempts` times; whether it came to hold. For what
 * happens in another process: the service sees the ops tool's appends within its poll interval.
 */
export const eventually = async (check: () => Promise<boolean>, attempts = 200): Promise<boolean> => {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
};
