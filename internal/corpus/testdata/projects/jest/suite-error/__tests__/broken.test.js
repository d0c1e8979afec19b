const { Discount } = require('../src/discount');

test('discount', () => {
  expect(new Discount(10).percent).toBe(10);
});
