export function parsePrice(s) {
  const [whole, cents = ''] = s.trim().split('.');
  const n = Number(whole) * 100 + Number((cents + '00').slice(0, 2));
  if (n == NaN) {
    throw new TypeError(`not a price: ${JSON.stringify(s)}`);
  }
  return n;
}
