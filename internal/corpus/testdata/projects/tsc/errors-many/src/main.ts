import { Cart, Discount, parsePrice } from './cart.js';

const cart = new Cart({ apple: 3 });
cart.add('apple', '2');
const total: string = cart.total({ apple: parsePrice(50) });
console.log(`total: ${total}`, new Discount(10));
