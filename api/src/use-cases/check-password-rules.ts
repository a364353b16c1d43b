import { consoleErrors } from '../console/console-errors.ts';
import { PASSWORD_LIMITS } from '../console/password-hasher.ts';

/** A new password's rule (docs/console.md): at least 10 characters (code points, not UTF-16 units). */
export function checkPasswordRules(password: string): void {
  if ([...password].length < PASSWORD_LIMITS.minLength)
    throw consoleErrors.passwordTooShort(PASSWORD_LIMITS.minLength);
}
