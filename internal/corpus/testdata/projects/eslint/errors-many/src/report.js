import { parsePrice } from './price.js';

var currency = 'EUR';

export function report(total, unused) {
  let line = `${(total / 100).toFixed(2)} ${currency}`;
  if (total == 0) {
    console.log('nothing to report');
  }
  return line + formatDate(new Date());
}
