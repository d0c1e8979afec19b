const { Cart, parsePrice } = require('../src/cart');

describe('parsePrice formats', () => {
  test.each([
    ['1.5', 150],
    ['1,50', 150],
    ['-2.25', -225],
  ])('parses %s', (s, want) => {
    expect(parsePrice(s)).toBe(want);
  });
});

describe('Totals', () => {
  test('adds an unknown item', () => {
    new Cart({ apple: 1 }).add('kiwi');
  });

  test('totals two pears', () => {
    const cart = new Cart({ pear: 2 });
    cart.add('pear', 2);
    expect({ total: cart.total({ pear: 70 }) }).toEqual({ total: 150, currency: 'EUR' });
  });

  test('resolves the price list', async () => {
    await expect(Promise.reject(new Error('price service unavailable'))).resolves.toEqual({});
  });
});
