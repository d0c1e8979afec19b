use std::collections::HashMap;

use shop::{must_positive, parse_price, Cart};

#[test]
fn parses_comma() {
    assert_eq!(parse_price("1,50"), Ok(150));
}

#[test]
fn parses_negative() {
    assert_eq!(parse_price("-2.25").unwrap(), -225);
}

#[test]
fn adds_unknown_item() {
    let mut cart = Cart::with_stock(&[("apple", 1)]);
    cart.add("kiwi", 1).expect("adding a kiwi");
}

#[test]
fn totals_two_pears() {
    let mut cart = Cart::with_stock(&[("pear", 2)]);
    cart.add("pear", 2).unwrap();
    assert!(cart.total(&HashMap::from([("pear", 70)])) == 150);
}

#[test]
fn refund() {
    println!("refunding 5");
    must_positive(-5);
}
