import type { operations } from '@coupons/client';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must, type CartExplanation } from '../api';
import { AppCrumbs, ErrorLine } from '../parts';
import { formatMoney } from '../money';
import { useApplication } from '../use-application';
import { CartBuilder, emptyLine, orderOf, type CartDraft } from './try-cart/cart-builder';
import { FreeGifts } from './try-cart/free-gifts';
import { RulesTable, type RuleCheck } from './try-cart/rules';
import { StackedVerdicts, type StackedAnswer } from './try-cart/stacked';

type Explanation = CartExplanation;
type ExplainBody = NonNullable<operations['explainCart']['requestBody']>['content']['application/json'];

/** What was tried: one code or every campaign (a verdict each), or several codes on one cart; and what a redeem of the order would be refused for. */
type Tried = { redeemRefusal: string | null } & (
  { kind: 'each'; data: { truncated: boolean; results: Explanation[] } } | { kind: 'stack'; data: StackedAnswer; items: string[] }
);

/** The order's items as a manager names them: its name, SKU or product id, in the order's order. */
function itemNames(order: unknown): string[] {
  const items = (order as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items)) return [];
  return items.map((item: unknown, i) => {
    const it = (item ?? {}) as Record<string, unknown>;
    const name = [it.name, it.sku, it.product_id].find((v) => typeof v === 'string' && v !== '') as string | undefined;
    const quantity = typeof it.quantity === 'number' && it.quantity > 1 ? ` × ${it.quantity}` : '';
    return `${name ?? `Item ${i + 1}`}${quantity}`;
  });
}

/**
 * "Try a cart": a customer and an order (pasted or edited as JSON), for every campaign or one code
 * — the verdict validate would give and each rule with its figures — or, for an application that
 * takes several coupons per order, for several codes together: the order they apply in, each
 * one's share and the totals. Nothing is redeemed or counted.
 */
export function TryCartPage({ app }: { app: string }) {
  const application = useApplication(app);
  const maxCoupons = application.data?.stacking.max_coupons ?? 1;
  const [codes, setCodes] = useState<string[]>(['']);
  const [orderError, setOrderError] = useState<string | null>(null);
  /** The cart built item by item (the default), or the order pasted as a storefront sends it. */
  const [asJson, setAsJson] = useState(false);
  const [cart, setCart] = useState<CartDraft>({
    lines: [{ ...emptyLine(1), name: 'Shoes', sku: 'SHOE-1', price: '1000', was: '1200' }],
    paymentMode: '',
    data: [],
  });
  const explain = useMutation({
    mutationFn: async ({ body, items }: { body: ExplainBody & { codes?: string[] }; items: string[] }): Promise<Tried> => {
      // `codes` is the explain route's several-codes form (docs/stacking.md), not yet in openapi.yaml.
      const data = await must(admin.POST('/admin/applications/{app}/explain', { params: { path: { app } }, body: body as ExplainBody }));
      const redeemRefusal = data.redeem_refusal ?? null;
      return body.codes
        ? { kind: 'stack', data: data as unknown as StackedAnswer, items, redeemRefusal }
        : { kind: 'each', data, redeemRefusal };
    },
  });

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    let order: unknown;
    if (asJson) {
      const text = String(form.get('order') ?? '').trim();
      try {
        order = text ? JSON.parse(text) : undefined;
        setOrderError(null);
      } catch (err) {
        setOrderError(`The order is not JSON: ${(err as Error).message}`);
        return;
      }
    } else order = orderOf(cart);
    const sourceId = String(form.get('source_id') ?? '').trim();
    const entered = codes.map((c) => c.trim()).filter((c) => c !== '');
    explain.mutate({
      body: {
        ...(sourceId ? { source_id: sourceId } : {}),
        ...(entered.length > 1 ? { codes: entered } : entered.length === 1 ? { code: entered[0] } : {}),
        ...(order !== undefined ? { order } : {}),
      },
      items: itemNames(order),
    });
  }

  const setCode = (i: number, value: string) => setCodes((all) => all.map((c, j) => (j === i ? value : c)));
  const tried = explain.data;
  return (
    <>
      <AppCrumbs app={app}>try a cart</AppCrumbs>
      <h1>Try a cart</h1>
      <p className="hint">What validate would answer for this customer and order — nothing is redeemed or counted.</p>
      <form className="try" onSubmit={submit} aria-label="Cart to try">
        <div className="row">
          <label>
            Customer (source_id)
            <input name="source_id" placeholder="optional" />
          </label>
          {maxCoupons === 1 && (
            <label>
              Code
              <input name="code" value={codes[0] ?? ''} onChange={(e) => setCode(0, e.target.value)} placeholder="every campaign" />
            </label>
          )}
        </div>
        {maxCoupons > 1 && (
          <fieldset className="codes">
            <legend>Codes (up to {maxCoupons} per order)</legend>
            <p className="hint" id="codes-hint">
              None: every campaign. One: that code's verdict. Several: the order they apply in, together.
            </p>
            {codes.map((code, i) => (
              <div className="code-row" key={i}>
                <label>
                  Code {i + 1}
                  <input
                    name="code"
                    value={code}
                    onChange={(e) => setCode(i, e.target.value)}
                    aria-describedby={i === 0 ? 'codes-hint' : undefined}
                  />
                </label>
                {codes.length > 1 && (
                  <button
                    type="button"
                    onClick={() => setCodes((all) => all.filter((_, j) => j !== i))}
                    aria-label={`Remove code ${i + 1}`}
                  >
                    Remove
                  </button>
                )}
              </div>
            ))}
            {codes.length < maxCoupons && (
              <button type="button" onClick={() => setCodes((all) => [...all, ''])}>
                Add a code
              </button>
            )}
          </fieldset>
        )}
        <label className="inline">
          <input type="checkbox" checked={asJson} onChange={(e) => setAsJson(e.target.checked)} /> Paste the order as JSON instead (as a
          storefront sends it: an order to check)
        </label>
        {asJson ? (
          <>
            <label>
              Order (JSON, as sent to validate)
              <textarea
                name="order"
                rows={10}
                defaultValue={JSON.stringify(orderOf(cart), null, 2)}
                aria-invalid={orderError ? true : undefined}
                aria-describedby={orderError ? 'order-error' : undefined}
              />
            </label>
            <ErrorLine id="order-error" error={orderError} />
          </>
        ) : (
          <CartBuilder cart={cart} setCart={setCart} currency={application.data?.currency ?? null} />
        )}
        <button type="submit" disabled={explain.isPending}>
          Try it
        </button>
      </form>
      <ErrorLine error={application.error} />
      <ErrorLine error={explain.error} />
      {tried?.redeemRefusal && (
        <p role="status" className="notice warning" data-testid="redeem-refusal">
          A checkout that redeems with this order would be refused: {tried.redeemRefusal}. The verdicts below are what validate would
          answer.
        </p>
      )}
      {tried?.kind === 'stack' && (
        <StackedVerdicts app={app} answer={tried.data} items={tried.items} currency={application.data?.currency ?? null} />
      )}
      {tried?.kind === 'each' && (
        <section aria-label="Verdicts">
          {tried.data.truncated && <p className="hint">Only the first 500 campaigns are shown: name a code to try another.</p>}
          {tried.data.results.map((r) => (
            <Verdict
              key={`${r.campaign_id}:${r.code ?? ''}`}
              result={r}
              currency={application.data?.currency ?? null}
              timeZone={application.data?.timezone ?? null}
            />
          ))}
        </section>
      )}
    </>
  );
}

function Verdict({ result, currency, timeZone }: { result: Explanation; currency: string | null; timeZone: string | null }) {
  return (
    <article
      className={`verdict ${result.applicable ? 'yes' : 'no'}`}
      aria-label={`${result.campaign_name}: ${result.applicable ? 'applicable' : 'not applicable'}`}
    >
      <h2>
        {result.campaign_name} {result.code && <code>{result.code}</code>} —{' '}
        {result.applicable ? (
          <span data-testid="verdict">
            applicable:{' '}
            {result.cashback_amount > 0
              ? `${formatMoney(result.cashback_amount, currency)} cashback`
              : result.discount_amount === 0 && (result as { free_gifts?: unknown[] }).free_gifts?.length
                ? 'a free gift (below)'
                : `${formatMoney(result.discount_amount, currency)} off`}
          </span>
        ) : (
          <span data-testid="verdict">not applicable: {result.message}</span>
        )}
      </h2>
      {result.applicable && <FreeGifts result={result} currency={currency} />}
      <RulesTable name={result.campaign_name} checks={result.checks as RuleCheck[]} reading={{ currency, timeZone }} />
    </article>
  );
}
