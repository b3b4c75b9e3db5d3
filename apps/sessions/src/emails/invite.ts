/** The applicant invitation of a session, and how its recipient appears in the email log. */

export const INVITE_TEMPLATE = 'session_invite';
export const INVITE_SUBJECT = 'Please verify your identity';

/**
 * The recipient as the email log keeps it: the first character of the local part and of the domain, then
 * the top-level domain (`jane.doe@example.com` → `j***@e***.com`). Enough for support to tell two
 * applicants apart or confirm an address a customer reads out; not enough to recover the address.
 */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const tld = dot > 0 ? domain.slice(dot) : '';
  const first = (s: string) => [...s][0] ?? '';
  return `${first(local)}***@${first(domain)}***${tld}`.toLowerCase();
}

/** Subject and text of the invitation. The body names no applicant data: only the link. */
export function inviteMessage(link: string): { subject: string; text: string } {
  return {
    subject: INVITE_SUBJECT,
    text: [
      'Hello,',
      '',
      'You have been asked to verify your identity. It takes a few minutes and needs an identity document.',
      '',
      `Start here: ${link}`,
      '',
      'If you did not expect this email, you can ignore it.',
    ].join('\n'),
  };
}

/**
 * The Message-ID of an invitation: from its email-log row, so that every send of the same invitation (again
 * after a crash between the mail server's acceptance and its recording) is the same message, which mail
 * systems recognise as one. The domain is the sender's.
 */
export function inviteMessageId(emailLogId: string, from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'verity.local';
  return `<${emailLogId}@${domain}>`;
}
