/**
 * Money as a promotion manager reads it: in the application's currency (its ISO code, e.g. INR),
 * with the browser's digit grouping; two decimals when the application has no currency.
 */
export function formatMoney(amount: number, currency: string | null | undefined): string {
  if (!currency) return amount.toFixed(2);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    // A code the browser does not know: the amount, then the code as stored.
    return `${amount.toFixed(2)} ${currency}`;
  }
}
