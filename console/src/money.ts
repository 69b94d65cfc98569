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

/** Money for a chart's axis: short ("€1.2K", "₹500"), in the application's currency. */
export function formatMoneyShort(amount: number, currency: string | null | undefined): string {
  try {
    return new Intl.NumberFormat(undefined, {
      notation: 'compact',
      maximumFractionDigits: 1,
      ...(currency ? { style: 'currency', currency } : {}),
    }).format(amount);
  } catch {
    return formatMoney(amount, currency);
  }
}
