import { describe, expect, it } from 'vitest';
import { Cart, parsePrice } from './cart';
import { pickCamera } from './media';

describe('parsePrice formats', () => {
  it.each([
    ['1.5', 150],
    ['1,50', 150],
    ['-2.25', -225],
  ])('parses %s', (s, want) => {
    expect(parsePrice(s)).toBe(want);
  });
});

describe('Totals', () => {
  it('adds an unknown item', () => {
    new Cart({ apple: 1 }).add('kiwi');
  });

  it('totals two pears', () => {
    const cart = new Cart({ pear: 2 });
    cart.add('pear', 2);
    expect({ total: cart.total({ pear: 70 }) }).toEqual({ total: 150, currency: 'EUR' });
  });
});

describe('pickCamera', () => {
  it('finds the back camera', () => {
    pickCamera([{ kind: 'videoinput', label: 'Front Camera' }], 'Back');
  });
});
