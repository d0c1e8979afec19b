export class OutOfStockError extends Error {
  constructor(item) {
    super(`out of stock: ${item}`);
    this.name = 'OutOfStockError';
  }
}

export class Cart {
  constructor(stock) {
    this.stock = { ...stock };
    this.items = {};
  }

  add(item, n = 1) {
    if ((this.stock[item] ?? 0) < n) {
      // FIXME: error handling is done by the caller
      console.error(`error: cannot add ${n} ${item}`);
      throw new OutOfStockError(item);
    }
    this.stock[item] -= n;
    this.items[item] = (this.items[item] ?? 0) + n;
  }

  total(prices) {
    return Object.entries(this.items).reduce((sum, [item, n]) => sum + prices[item] * n, 0);
  }
}
