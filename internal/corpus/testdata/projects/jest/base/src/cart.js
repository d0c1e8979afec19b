'use strict';

class OutOfStockError extends Error {
  constructor(item) {
    super(`out of stock: ${item}`);
    this.name = 'OutOfStockError';
  }
}

class Cart {
  constructor(stock) {
    this.stock = { ...stock };
    this.items = {};
  }

  add(item, n = 1) {
    if ((this.stock[item] || 0) < n) {
      throw new OutOfStockError(item);
    }
    this.stock[item] -= n;
    this.items[item] = (this.items[item] || 0) + n;
  }

  total(prices) {
    return Object.entries(this.items).reduce((sum, [item, n]) => sum + prices[item] * n, 0);
  }

  count() {
    process.emitWarning('Cart.count() is deprecated, use Object.keys(cart.items)', 'DeprecationWarning', 'SHOP001');
    return Object.values(this.items).reduce((a, b) => a + b, 0);
  }
}

function parsePrice(s) {
  const [whole, cents = ''] = s.trim().split('.');
  const n = Number(whole) * 100 + Number((cents + '00').slice(0, 2));
  if (Number.isNaN(n)) {
    throw new TypeError(`not a price: ${JSON.stringify(s)}`);
  }
  return n;
}

module.exports = { Cart, OutOfStockError, parsePrice };
