/** The signed-in user (holder or operator) and their CSRF token, for the whole app. */
import { type ComponentChildren, createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, setCsrfToken, setUnauthorizedHandler } from './api/client.ts';
import { signOut as endSession, getSession } from './api/endpoints.ts';
import type { Session } from './api/types.ts';
import { setBillingCalendar } from './billing-calendar.ts';

export type SessionState =
  | { readonly status: 'checking' }
  | { readonly status: 'signed-out'; readonly expired?: boolean }
  | { readonly status: 'signed-in'; readonly session: Session }
  | { readonly status: 'error'; readonly error: unknown };

interface SessionContextValue {
  readonly state: SessionState;
  /** After sign-in or password setting: the answer carries the session. */
  readonly signedIn: (session: Session) => void;
  readonly signOut: () => Promise<void>;
  readonly recheck: () => void;
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [state, setState] = useState<SessionState>({ status: 'checking' });

  const apply = useCallback((next: SessionState) => {
    setCsrfToken(next.status === 'signed-in' ? next.session.csrf_token : undefined);
    setBillingCalendar(next.status === 'signed-in' ? next.session.billing : undefined);
    setState(next);
  }, []);

  const check = useCallback(() => {
    getSession().then(
      (session) => apply({ status: 'signed-in', session }),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) apply({ status: 'signed-out' });
        else apply({ status: 'error', error });
      },
    );
  }, [apply]);

  useEffect(() => {
    check();
    setUnauthorizedHandler(() => apply({ status: 'signed-out', expired: true }));
    return () => setUnauthorizedHandler(undefined);
  }, [check, apply]);

  const value = useMemo<SessionContextValue>(
    () => ({
      state,
      signedIn: (session) => apply({ status: 'signed-in', session }),
      signOut: async () => {
        try {
          await endSession();
        } finally {
          apply({ status: 'signed-out' });
        }
      },
      recheck: check,
    }),
    [state, apply, check],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === undefined) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The session when signed in, else undefined. */
export function useCurrentSession(): Session | undefined {
  const { state } = useSession();
  return state.status === 'signed-in' ? state.session : undefined;
}
