import { describe, expect, it } from 'vitest';
import { Cart, OutOfStockError, parsePrice } from './cart';

describe('Cart', () => {
  it('adds items', () => {
    const cart = new Cart({ apple: 3 });
    cart.add('apple', 2);
    expect(cart.items).toEqual({ apple: 2 });
  });

  it('refuses what is out of stock', () => {
    const cart = new Cart({ pear: 1 });
    expect(() => cart.add('pear', 2)).toThrow(OutOfStockError);
    console.error(new OutOfStockError('pear'));
  });

  it.skip('checks out', () => {});
  it.todo('applies coupons');
});

describe('parsePrice', () => {
  it.each([
    ['3.50', 350],
    ['3', 300],
    [' 0.05 ', 5],
  ])('parses %s', (s, want) => {
    expect(parsePrice(s)).toBe(want);
  });

  it('rejects garbage', () => {
    expect(() => parsePrice('abc')).toThrowError(/not a price/);
    console.warn('FAIL-safe: garbage price rejected (expected)');
  });
});
