const assert = require('node:assert/strict');
const { Cart } = require('../src/cart');

describe('Discount', function () {
  it('gives 10% off the total', function () {
    const cart = new Cart({ apple: 5 });
    cart.add('apple', 4);
    assert.equal(cart.total({ apple: 50 }), 180);
  });
});
