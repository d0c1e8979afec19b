'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Cart } = require('../src/cart');

test('discounted total', () => {
  const cart = new Cart({ apple: 5 });
  cart.add('apple', 4);
  assert.equal(cart.total({ apple: 50 }), 180, 'four apples at 50 with 10% off');
});
