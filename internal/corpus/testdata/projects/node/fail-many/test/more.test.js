'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { Cart, parsePrice } = require('../src/cart');

describe('parsePrice formats', () => {
  it('reads 1.5', () => assert.equal(parsePrice('1.5'), 150));
  it('reads 1,50', () => assert.equal(parsePrice('1,50'), 150));
  it('reads -2.25', () => assert.equal(parsePrice('-2.25'), -225));
});

describe('Totals', () => {
  it('adds an unknown item', () => {
    const cart = new Cart({ apple: 1 });
    cart.add('kiwi');
  });

  it('totals two pears', () => {
    const cart = new Cart({ pear: 2 });
    cart.add('pear', 2);
    assert.deepEqual({ total: cart.total({ pear: 70 }) }, { total: 150, currency: 'EUR' });
  });

  it('times out', { timeout: 50 }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
  });
});
