import { CHECK_TYPES, SUBJECTS, type CheckType, type ConsoleBilling, type WorkflowTemplate } from '@verity/contracts';
import type { ConsoleApp, PageContext, PageResult } from '../app.js';
import { html, type Html } from '@verity/html';
import { emptyState, notice, table } from '../layout.js';
import { CHECK_LABELS } from './labels.js';

/** The checks of the default workflow (document, face match, liveness): the price shown when the organization has no live template. */
const DEFAULT_CHECKS: readonly CheckType[] = ['document', 'face_match', 'liveness'];
/** A balance that covers fewer verifications than this, at the dearest live template's price, is low. */
export const LOW_BALANCE_VERIFICATIONS = 10;

/**
 * Billing (owners, admins): the organization's wallet with its unit and currency, the price of each check and of each
 * live workflow, the live spend per day, and a warning when the balance runs low (docs/console.md, "Billing").
 */
export function registerBilling(app: ConsoleApp): void {
  app.get('billing', '/billing', (ctx) => billingPage(ctx));
}

/** An amount of minor units as money, "USD 100.00", with the minor units beside it. */
export function money(amount: number, b: Pick<ConsoleBilling, 'currency' | 'minor_unit_digits'>): Html {
  const major = new Intl.NumberFormat('en', { style: 'currency', currency: b.currency, currencyDisplay: 'code' }).format(amount / 10 ** b.minor_unit_digits);
  return html`<span class="money">${major.replace(/\u00a0/g, ' ')}</span> <span class="muted small">${amount.toLocaleString('en')} minor units</span>`;
}

function priceOf(checks: readonly CheckType[], b: ConsoleBilling): number {
  return [...new Set(checks)].reduce((sum, c) => sum + (b.check_prices[c] ?? 0), 0);
}

async function billingPage(ctx: PageContext): Promise<PageResult> {
  const b = await ctx.call(SUBJECTS.accountsConsoleBilling, { days: 30 });
  // the live workflows price live verifications, whichever mode the person works in
  const templates = await ctx.callInMode('live', SUBJECTS.templatesList, { limit: '100' }).then(
    (p): WorkflowTemplate[] | null => p.data,
    (e: unknown) => {
      ctx.deps.log.warn({ err: e, request_id: ctx.requestId }, 'live templates not read for billing');
      return null;
    },
  );
  const priced = (templates ?? []).map((t) => ({ name: t.name, checks: t.checks, price: priceOf(t.checks, b) }));
  const reference = priced.length > 0 ? priced.reduce((a, t) => (t.price > a.price ? t : a)) : { name: 'document, face match and liveness', checks: DEFAULT_CHECKS, price: priceOf(DEFAULT_CHECKS, b) };
  const cheapest = priced.length > 0 ? Math.min(...priced.map((t) => t.price)) : reference.price;
  const balance = b.wallet_balance;
  const covers = balance === null || reference.price === 0 ? null : Math.floor(balance / reference.price);
  const warning =
    balance === null
      ? notice('error', 'This organization has no wallet: live verifications are refused (402) until the operator of the region gives it one.')
      : b.wallet_locked
        ? notice('error', 'The wallet is locked: live verifications are refused (402) until the operator of the region unlocks it.')
        : balance < cheapest
          ? notice('error', html`The balance does not cover a live verification (the cheapest costs ${money(cheapest, b)}): live creates are refused (402) until it is topped up.`)
          : covers !== null && covers < LOW_BALANCE_VERIFICATIONS
            ? notice('info', html`<strong>Low balance</strong>: it covers ${covers} more verification${covers === 1 ? '' : 's'} of ${reference.name} (${money(reference.price, b)} each).`)
            : '';
  const total = b.spend.reduce((s, d) => s + d.amount, 0);
  const count = b.spend.reduce((s, d) => s + d.verifications, 0);
  return ctx.render(
    'Billing',
    html`<p class="muted">Live verifications are paid from the organization's wallet when they are created; test mode is never billed. Amounts are in <strong>${b.currency}</strong>, kept as whole minor units (${b.minor_unit_digits === 0 ? `one minor unit is one ${b.currency}` : `${(10 ** b.minor_unit_digits).toLocaleString('en')} minor units make one ${b.currency}`}).</p>
${warning}
<section class="panel billing-wallet" aria-labelledby="wallet-title">
<h2 id="wallet-title">Wallet</h2>
<dl class="facts">
  <dt>Balance</dt><dd data-testid="balance">${balance === null ? html`<span class="muted">No wallet</span>` : money(balance, b)}</dd>
  ${covers !== null ? html`<dt>Covers</dt><dd>about ${covers.toLocaleString('en')} verification${covers === 1 ? '' : 's'} of ${reference.name}</dd>` : ''}
  <dt>Status</dt><dd>${b.wallet_locked ? 'Locked' : balance === null ? 'None' : 'Open'} · subscription ${b.subscription_status.replace('_', ' ')}</dd>
</dl>
<p class="muted small">The region's operator tops the wallet up (<code>npm run admin -- billing set --wallet-balance</code>, in minor units).</p>
</section>
<h2>Price per verification</h2>
<p class="muted">A live verification costs the sum of its workflow's checks, debited once when it is created and given back if it is never written.</p>
${
  templates === null
    ? notice('error', 'The live workflow templates could not be read just now.')
    : priced.length > 0
      ? table('Live workflow templates and their price', ['Workflow template', 'Checks', 'Price'], priced.map((t) => [html`${t.name}`, html`${t.checks.map((c) => CHECK_LABELS[c] ?? c).join(', ')}`, money(t.price, b)]))
      : emptyState('No live workflow templates yet', html`The default workflow (document, face match and liveness) would cost ${money(reference.price, b)}.`)
}
<h2>Price per check</h2>
<div class="billing-prices">${table('Price per check', ['Check', 'Price'], CHECK_TYPES.map((c) => [html`${CHECK_LABELS[c]}`, money(b.check_prices[c], b)]))}</div>
<h2>Live spend per day</h2>
<p class="muted">The last 30 days (UTC), debits given back left out: ${count.toLocaleString('en')} verification${count === 1 ? '' : 's'}, ${money(total, b)}.</p>
${
  b.spend.length > 0
    ? table('Live spend per day', ['Day', 'Verifications', 'Spent'], b.spend.map((d) => [html`<time datetime="${d.day}">${d.day}</time>`, html`<span class="num">${d.verifications}</span>`, money(d.amount, b)]))
    : emptyState('No live spend in the last 30 days', 'Each live verification created appears here on its day.')
}`,
  );
}
