import type { Invitation } from '../../api/types.ts';
import { CopyButton } from '../../components/ui.tsx';
import { useI18n } from '../../i18n/i18n.tsx';

/** The invitation or reset link as an absolute address, whatever form the API gives it in. */
export function absoluteLink(url: string): string {
  return new URL(url, window.location.origin).toString();
}

/** A one-time link for the holder, with its expiry and a copy button. */
export function InvitationLink({ invitation }: { invitation: Invitation }) {
  const { t, format } = useI18n();
  const link = absoluteLink(invitation.url);
  return (
    <div class="invitation" data-testid="invitation">
      <p class="note note-warning">{t('operator.invitation_note')}</p>
      <label class="field">
        <span>
          {invitation.purpose === 'reset' ? t('operator.reset_link') : t('operator.invitation_link')}
        </span>
        <input
          readOnly
          dir="ltr"
          class="mono"
          value={link}
          data-testid="invitation-link"
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <div class="actions actions-start">
        <CopyButton text={link} testId="copy-invitation" />
        {invitation.expires_at ? (
          <small class="hint">
            {t('operator.link_expires', { when: format.dateTime(invitation.expires_at) })}
          </small>
        ) : null}
      </div>
    </div>
  );
}
