import { Inject, Injectable } from '@nestjs/common';
import type { ConsoleOrgTwoFactorRequest, ConsoleTotpBeginReply, ConsoleTotpBeginRequest, ConsoleTotpCodeRequest, ConsoleTotpConfirmReply, ConsoleTotpVerifyReply, ConsoleUser } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import { CONFIG } from '@verity/platform';
import type { AccountsConfig } from '../config.js';
import { ConsoleUsersRepository, toConsoleUser, type TotpState } from './console-users.repository.js';
import { invalid } from './console-validation.js';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, recoveryCodeOf, totpCodeOf, totpStepOf, totpUri } from './totp.js';

/** Longest code text looked at (a recovery code with spaces); anything longer is refused unread. */
const CODE_MAX = 64;

/**
 * Two-factor sign-in to the console (docs/console.md, "Two-factor sign-in"): a person enrols an authenticator app
 * (RFC 6238) and gets recovery codes; sign-in then takes a code after the password. The secret stays in accounts:
 * it is answered once, while it is being enrolled, and never logged; recovery codes are kept as hashes.
 */
@Injectable()
export class ConsoleTwoFactorService {
  constructor(
    private readonly users: ConsoleUsersRepository,
    @Inject(CONFIG) private readonly cfg: AccountsConfig,
  ) {}

  private async state(userId: unknown): Promise<TotpState> {
    const state = isId('consoleUser', userId) ? await this.users.totpState(userId) : null;
    if (!state) throw DomainError.notFound('user_id');
    return state;
  }

  /** The secret to enrol: the one shown less than 15 minutes ago if any (the person may have scanned it), else a new one. */
  async begin(req: ConsoleTotpBeginRequest): Promise<ConsoleTotpBeginReply> {
    const state = await this.state(req?.user_id);
    if (state.totp_secret !== null) throw invalid('user_id', 'two-factor sign-in is already on');
    let secret = state.totp_pending_secret;
    if (secret === null) {
      secret = newTotpSecret();
      if (!(await this.users.setPendingSecret(state.id, secret))) throw invalid('user_id', 'two-factor sign-in is already on');
    }
    return { secret, uri: totpUri(secret, `Verity ${this.cfg.REGION.toUpperCase()}`, state.email) };
  }

  /** A code of the secret being enrolled turns two-factor sign-in on; answers the recovery codes, once. */
  async confirm(req: ConsoleTotpCodeRequest): Promise<ConsoleTotpConfirmReply> {
    const state = await this.state(req?.user_id);
    if (state.totp_secret !== null) throw invalid('user_id', 'two-factor sign-in is already on');
    if (state.totp_pending_secret === null) throw invalid('code', 'the setup took longer than 15 minutes: start it again');
    const code = typeof req.code === 'string' && req.code.length <= CODE_MAX ? totpCodeOf(req.code) : null;
    const step = code === null ? null : totpStepOf(state.totp_pending_secret, code, Date.now(), null);
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
      const step = totpStepOf(state.totp_secret, code, Date.now(), state.totp_last_step);
      const row = step === null ? null : await this.users.takeTotpStep(state.id, step);
      return row ? { user: toConsoleUser(row), method: 'totp' } : null;
    }
    const recovery = recoveryCodeOf(given);
    if (recovery === null || !(await this.users.useRecoveryCode(state.id, recoveryCodeHash(recovery)))) return null;
    return { user: toConsoleUser(state), method: 'recovery_code' };
  }
}
