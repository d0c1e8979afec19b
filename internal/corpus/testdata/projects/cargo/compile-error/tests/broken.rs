use shop::{Cart, Discount};

#[test]
fn discount() {
    let cart = Cart::with_stock(&[("fig", 2)]);
    let n: String = cart.total(&Default::default());
    assert_eq!(Discount::new(10).apply(&cart), n);
}
