import { Cart, OutOfStockError, parsePrice } from './cart.js';

// A small program whose log looks like trouble: what `tsc && node` prints.
const cart = new Cart({ apple: 3, pear: 1 });
cart.add('apple', 2);
try {
  cart.add('pear', 2);
} catch (err) {
  if (err instanceof OutOfStockError) {
    console.error(`error TS0000-like line? No: ${err.name}: ${err.message} (handled)`);
  }
}
console.warn('(node) DeprecationWarning: Cart.count() is deprecated');
console.log(`total: ${cart.total({ apple: parsePrice('0.50') })} cents, 0 errors`);
