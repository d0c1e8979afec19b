import { expect, test } from 'vitest';
import { Cart } from './cart';

test('discounted total', () => {
  const cart = new Cart({ apple: 5 });
  cart.add('apple', 4);
  // Four apples at 50 with 10% off.
  expect(cart.total({ apple: 50 })).toBe(180);
});
