import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { ConsoleOrgTwoFactorRequest, ConsoleTotpBeginReply, ConsoleTotpBeginRequest, ConsoleTotpCodeRequest, ConsoleTotpConfirmReply, ConsoleTotpVerifyReply, ConsoleUser } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import { CONFIG, LOGGER, type Logger } from '@verity/platform';
import type { AccountsConfig } from '../config.js';
import { ConsoleUsersRepository, toConsoleUser, type TotpState } from './console-users.repository.js';
import { invalid } from './console-validation.js';
import { isSealed, TotpBox } from './totp-box.js';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, recoveryCodeOf, totpCodeOf, totpStepOf, totpUri } from './totp.js';

/** Longest code text looked at (a recovery code with spaces); anything longer is refused unread. */
const CODE_MAX = 64;
/** Secrets stored in clear (by an earlier release) sealed per pass at start. */
const SEAL_PAGE = 100;

/**
 * Two-factor sign-in to the console (docs/console.md, "Two-factor sign-in"): a person enrols an authenticator app
 * (RFC 6238) and gets recovery codes; sign-in then takes a code after the password. The secret stays in accounts,
 * encrypted at rest (`TotpBox`, CONSOLE_TOTP_KEY): it is answered once, while it is being enrolled, and never logged;
 * recovery codes are kept as hashes.
 */
@Injectable()
export class ConsoleTwoFactorService implements OnApplicationBootstrap {
  constructor(
    private readonly users: ConsoleUsersRepository,
    private readonly box: TotpBox,
    @Inject(CONFIG) private readonly cfg: AccountsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** Seals the secrets an earlier release stored in clear, before this process serves: a failure is logged, and retried at the next start. */
  async onApplicationBootstrap(): Promise<void> {
    try {
      const sealed = await this.sealClearSecrets();
      if (sealed > 0) this.log.info({ sealed }, 'console TOTP secrets stored in clear are now encrypted');
    } catch (err) {
      this.log.warn({ err }, 'console TOTP secrets stored in clear not encrypted yet; the next start tries again');
    }
  }

  /** Encrypts every TOTP secret (and secret being enrolled) stored in clear; answers how many values it sealed. */
  async sealClearSecrets(): Promise<number> {
    let sealed = 0;
    for (;;) {
      const rows = await this.users.clearTotpSecrets(SEAL_PAGE);
      for (const row of rows) {
        for (const column of ['totp_secret', 'totp_pending_secret'] as const) {
          const clear = row[column];
          if (clear === null) continue;
          await this.users.sealTotpSecret(row.id, column, clear, this.box.seal(clear, row.id));
          sealed++;
        }
      }
      if (rows.length < SEAL_PAGE) return sealed;
    }
  }

  /**
   * A stored secret as the app knows it: opened, or as it is when an earlier release stored it in clear; null (and
   * logged) when it does not open: another key than sealed it, or a sealed value copied from another person's row.
   */
  private clear(stored: string | null, userId: string): string | null {
    if (stored === null || !isSealed(stored)) return stored;
    try {
      return this.box.open(stored, userId);
    } catch (err) {
      this.log.error({ err, user_id: userId }, 'a console TOTP secret does not open with CONSOLE_TOTP_KEY');
      return null;
    }
  }

  private async state(userId: unknown): Promise<TotpState> {
    const state = isId('consoleUser', userId) ? await this.users.totpState(userId) : null;
    if (!state) throw DomainError.notFound('user_id');
    return state;
  }

  /** The secret to enrol: the one shown less than 15 minutes ago if any (the person may have scanned it), else a new one. */
  async begin(req: ConsoleTotpBeginRequest): Promise<ConsoleTotpBeginReply> {
    const state = await this.state(req?.user_id);
    if (state.totp_secret !== null) throw invalid('user_id', 'two-factor sign-in is already on');
    let secret = this.clear(state.totp_pending_secret, state.id);
    if (secret === null) {
      secret = newTotpSecret();
      if (!(await this.users.setPendingSecret(state.id, this.box.seal(secret, state.id)))) throw invalid('user_id', 'two-factor sign-in is already on');
    }
    return { secret, uri: totpUri(secret, `Verity ${this.cfg.REGION.toUpperCase()}`, state.email) };
  }

  /** A code of the secret being enrolled turns two-factor sign-in on; answers the recovery codes, once. */
  async confirm(req: ConsoleTotpCodeRequest): Promise<ConsoleTotpConfirmReply> {
    const state = await this.state(req?.user_id);
    if (state.totp_secret !== null) throw invalid('user_id', 'two-factor sign-in is already on');
    if (state.totp_pending_secret === null) throw invalid('code', 'the setup took longer than 15 minutes: start it again');
    const code = typeof req.code === 'string' && req.code.length <= CODE_MAX ? totpCodeOf(req.code) : null;
    const pending = this.clear(state.totp_pending_secret, state.id);
    const step = code === null || pending === null ? null : totpStepOf(pending, code, Date.now(), null);
    if (step === null) throw invalid('code', 'that code is not the one the app shows now');
    const codes = newRecoveryCodes();
    const row = await this.users.enableTotp(state.id, state.totp_pending_secret, step, codes.map(recoveryCodeHash));
    if (!row) throw invalid('code', 'the setup changed meanwhile: start it again');
    return { user: toConsoleUser(row), recovery_codes: codes };
  }

  /**
   * The code step of a sign-in: a code of the app, good once, or an unused recovery code, used up. The same refusal
   * (422 on `code`) for a wrong code, a code already taken, a person without two-factor sign-in and a disabled one.
   */
  async verify(req: ConsoleTotpCodeRequest): Promise<ConsoleTotpVerifyReply> {
    const state = await this.state(req?.user_id);
    const result = await this.check(state, req.code);
    if (!result || state.disabled_at !== null) throw invalid('code', 'that code is not right');
    return { user: result.user, method: result.method, recovery_codes_left: await this.users.recoveryCodesLeft(state.id) };
  }

  /** Turns two-factor sign-in off, with a code of the app or a recovery code (as at sign-in). */
  async disable(req: ConsoleTotpCodeRequest): Promise<ConsoleUser> {
    const state = await this.state(req?.user_id);
    if (state.totp_secret === null) throw invalid('user_id', 'two-factor sign-in is off');
    if (state.totp_required) throw invalid('user_id', 'your organization requires two-factor sign-in: it cannot be turned off');
    if (!(await this.check(state, req.code))) throw invalid('code', 'that code is not right');
    const row = await this.users.disableTotp(state.id);
    if (!row) throw DomainError.notFound('user_id');
    return toConsoleUser(row);
  }

  /**
   * An owner turns off another person's two-factor sign-in (a lost phone, no recovery code left): their secret and
   * recovery codes go and their sessions end; they sign in with their password and, if the organization requires it,
   * set it up again before anything else. Not one's own (that takes a code, on "Your account").
   */
  async reset(orgId: string, userId: unknown, actorId: string): Promise<ConsoleUser> {
    if (!isId('consoleUser', userId)) throw DomainError.notFound('user_id');
    if (userId === actorId) throw invalid('user_id', 'your own two-factor sign-in is turned off on your account page, with a code');
    const result = await this.users.resetTotp(orgId, userId);
    if (result === 'missing') throw DomainError.notFound('user_id');
    if (result === 'off') throw invalid('user_id', 'two-factor sign-in is off for this person');
    return toConsoleUser(result);
  }

  /** Whether the organization requires two-factor sign-in; takes effect on each person's next request. */
  async setRequired(req: ConsoleOrgTwoFactorRequest): Promise<ConsoleOrgTwoFactorRequest> {
    if (typeof req?.required !== 'boolean') throw invalid('required', 'required must be true or false');
    const required = isId('org', req.org_id) ? await this.users.setTwoFactorRequired(req.org_id, req.required) : null;
    if (required === null) throw DomainError.notFound('org_id');
    return { org_id: req.org_id, required };
  }

  private async check(state: TotpState, given: unknown): Promise<{ user: ConsoleUser; method: 'totp' | 'recovery_code' } | null> {
    if (state.totp_secret === null || typeof given !== 'string' || given.length > CODE_MAX) return null;
    const code = totpCodeOf(given);
    if (code !== null) {
      const secret = this.clear(state.totp_secret, state.id);
      const step = secret === null ? null : totpStepOf(secret, code, Date.now(), state.totp_last_step);
      const row = step === null ? null : await this.users.takeTotpStep(state.id, step);
      return row ? { user: toConsoleUser(row), method: 'totp' } : null;
    }
    const recovery = recoveryCodeOf(given);
    if (recovery === null || !(await this.users.useRecoveryCode(state.id, recoveryCodeHash(recovery)))) return null;
    return { user: toConsoleUser(state), method: 'recovery_code' };
  }
}
