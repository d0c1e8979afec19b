export class OutOfStockError extends Error {
  constructor(public item: string) {
    super(`out of stock: ${item}`);
    this.name = 'OutOfStockError';
  }
}

export class Cart {
  stock: Record<string, number>;
  items: Record<string, number> = {};

  constructor(stock: Record<string, number>) {
    this.stock = { ...stock };
  }

  add(item: string, n = 1): void {
    if ((this.stock[item] ?? 0) < n) {
      throw new OutOfStockError(item);
    }
    this.stock[item] -= n;
    this.items[item] = (this.items[item] ?? 0) + n;
  }

  total(prices: Record<string, number>): number {
    return Object.entries(this.items).reduce((sum, [item, n]) => sum + prices[item] * n, 0);
  }
}

export function parsePrice(s: string): number {
  const [whole, cents = ''] = s.trim().split('.');
  const n = Number(whole) * 100 + Number((cents + '00').slice(0, 2));
  if (Number.isNaN(n)) {
    throw new TypeError(`not a price: ${JSON.stringify(s)}`);
  }
  return n;
}
