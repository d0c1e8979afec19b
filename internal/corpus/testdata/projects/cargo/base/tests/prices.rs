use shop::parse_price;

#[test]
fn parses_prices() {
    for (s, want) in [("3.50", 350), ("3", 300), (" 0.05 ", 5)] {
        assert_eq!(parse_price(s), Ok(want), "parse_price({s:?})");
    }
}

#[test]
fn rejects_garbage() {
    let unused = 1; // a compiler warning, as noise
    assert!(parse_price("abc").is_err());
}
