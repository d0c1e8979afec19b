import { expect, test } from 'vitest';
import { Discount } from './discount';

test('discount', () => {
  expect(new Discount(10).percent).toBe(10);
});
