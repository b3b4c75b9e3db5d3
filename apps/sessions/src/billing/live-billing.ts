import { SUBJECTS, type CheckType, type Principal } from '@verity/contracts';
import type { RpcClient, RpcContext } from '@verity/platform';

/**
 * Billing of a live create (docs/sessions.md, "Billing"), the sessions half of the saga of docs/decisions.md. The price of the
 * session's checks is debited from the organization's wallet, keyed by the id the session is about to get,
 * after every validation and lookup and before anything is written; a refusal (402 `payment_required`, or 503
 * when accounts does not answer in time) reaches the caller and nothing is written.
 */
export async function debitLiveCreate(rpc: RpcClient, p: Principal, sessionId: string, checks: CheckType[], ctx: RpcContext): Promise<void> {
  await rpc.call(SUBJECTS.accountsBillingDebit, { session_id: sessionId, checks }, { principal: p, requestId: ctx.requestId, timeoutMs: Math.max(50, ctx.deadline - Date.now()) });
}

/**
 * Gives back the debit of a create that wrote nothing, once `absent` (default: certainly absent) confirms it.
 * Best effort, and it does not hold up the answer: whatever it misses (this process dying, accounts not
 * answering, a debit that committed after its caller gave up) the settle sweep of accounts refunds once the
 * session is seen never to have come.
 */
export function refundUnwritten(rpc: RpcClient, p: Principal, sessionId: string, ctx: RpcContext, absent: () => Promise<boolean> = async () => true): void {
  void (async () => {
    try {
      if (!(await absent())) return;
      // on the service's own account (a copy, without the caller's signature): the request may be over by now
      await rpc.call(SUBJECTS.accountsBillingRefund, { session_id: sessionId }, { principal: { ...p }, requestId: ctx.requestId });
    } catch (err) {
      ctx.log.warn({ err, session_id: sessionId }, 'debit of an unwritten live session not given back; the billing sweep of accounts will');
    }
  })();
}
