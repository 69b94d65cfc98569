/** Wallet points are stored as integer hundredths (decision 21: at most 2 decimals). */
export const toHundredths = (points: number): number => Math.round(points * 100);
export const fromHundredths = (h: number): number => h / 100;
