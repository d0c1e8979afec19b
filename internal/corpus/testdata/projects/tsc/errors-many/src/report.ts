export function report(cents: number): string {
  return `${cents.toFixed(2)} ${currency}`;
}

export function unused(x) {
  return x;
}
