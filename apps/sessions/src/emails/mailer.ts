import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, LOGGER, type Logger } from '@verity/platform';
import nodemailer, { type Transporter } from 'nodemailer';
import type { SessionsConfig } from '../config.js';

/**
 * Delivers live-mode emails through nodemailer: SMTP when `SMTP_URL` is set, otherwise a log-only JSON
 * transport (local development: the message is built, not sent, and only its id is logged). Test mode never
 * reaches here.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly transport: Transporter;
  readonly logOnly: boolean;

  constructor(
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.logOnly = !cfg.SMTP_URL;
    // every wait on the mail server is bounded, so that a send ends within its job's lease
    const t = cfg.SMTP_TIMEOUT;
    this.transport = cfg.SMTP_URL
      ? nodemailer.createTransport({ url: cfg.SMTP_URL, connectionTimeout: t, greetingTimeout: t, socketTimeout: t, dnsTimeout: t } as Parameters<typeof nodemailer.createTransport>[0])
      : nodemailer.createTransport({ jsonTransport: true });
  }

  /** Sends one message with the given Message-ID; the address and body are never logged. */
  async send(m: { to: string; subject: string; text: string; messageId: string; template: string; sessionId: string }): Promise<void> {
    const info = (await this.transport.sendMail({ from: this.cfg.SMTP_FROM, to: m.to, subject: m.subject, text: m.text, messageId: m.messageId })) as { messageId?: string };
    this.log.info(
      { template: m.template, session_id: m.sessionId, message_id: info.messageId, transport: this.logOnly ? 'json' : 'smtp' },
      this.logOnly ? 'email built (log-only transport, not delivered)' : 'email sent',
    );
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
