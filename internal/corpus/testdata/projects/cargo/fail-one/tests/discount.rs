use std::collections::HashMap;

use shop::Cart;

#[test]
fn discounted_total() {
    let mut cart = Cart::with_stock(&[("apple", 5)]);
    cart.add("apple", 4).unwrap();
    let prices = HashMap::from([("apple", 50)]);
    assert_eq!(cart.total(&prices), 180, "four apples at 50 with 10% off");
}
