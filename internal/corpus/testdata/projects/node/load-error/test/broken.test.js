'use strict';
const { test } = require('node:test');
const { Discount } = require('../src/discount');

test('discount', () => {
  new Discount(10);
});
