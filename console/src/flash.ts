/**
 * A one-time message carried to the next page (a save that navigates back to a list): said once in
 * a status region there, then gone. Kept in this tab's sessionStorage, so a reload in between keeps it.
 */
import { useState } from 'react';

const KEY = 'coupons.flash';

export function flash(message: string): void {
  sessionStorage.setItem(KEY, message);
}

/** The message left for this page, read once when it first renders. */
export function useFlash(): string | null {
  const [message] = useState(() => {
    const m = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    return m;
  });
  return message;
}
