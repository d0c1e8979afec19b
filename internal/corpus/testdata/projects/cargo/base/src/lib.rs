//! The arithmetic of a small shop.

use std::collections::HashMap;

/// A shopping cart.
#[derive(Default)]
pub struct Cart {
    pub stock: HashMap<String, u32>,
    pub items: HashMap<String, u32>,
}

impl Cart {
    pub fn with_stock(stock: &[(&str, u32)]) -> Cart {
        Cart {
            stock: stock.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            items: HashMap::new(),
        }
    }

    /// Adds n of item, or fails when there are fewer in stock.
    pub fn add(&mut self, item: &str, n: u32) -> Result<(), String> {
        let left = self.stock.get(item).copied().unwrap_or(0);
        if left < n {
            return Err(format!("out of stock: {item}"));
        }
        self.stock.insert(item.to_string(), left - n);
        *self.items.entry(item.to_string()).or_insert(0) += n;
        Ok(())
    }

    pub fn total(&self, prices: &HashMap<&str, u32>) -> u32 {
        self.items.iter().map(|(k, n)| prices[k.as_str()] * n).sum()
    }

    #[deprecated(note = "use items.len()")]
    pub fn count(&self) -> u32 {
        self.items.values().sum()
    }
}

/// Parses "3.50" into cents.
///
/// ```
/// assert_eq!(shop::parse_price("3.50"), Ok(350));
/// ```
pub fn parse_price(s: &str) -> Result<i64, std::num::ParseIntError> {
    let s = s.trim();
    let (whole, cents) = s.split_once('.').unwrap_or((s, ""));
    let cents = format!("{cents}00");
    Ok(whole.parse::<i64>()? * 100 + cents[..2].parse::<i64>()?)
}

/// Panics on a negative quantity.
pub fn must_positive(n: i64) -> i64 {
    if n < 0 {
        panic!("negative quantity: {n}");
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_items() {
        let mut cart = Cart::with_stock(&[("apple", 3)]);
        cart.add("apple", 2).unwrap();
        assert_eq!(cart.items["apple"], 2);
    }

    #[test]
    fn refuses_out_of_stock() {
        let mut cart = Cart::with_stock(&[("pear", 1)]);
        let err = cart.add("pear", 2).unwrap_err();
        // Noise under --nocapture: an expected error, printed.
        eprintln!("error: {err} (expected)");
        println!("test result: FAILED. (not really: this is a log line)");
    }

    #[test]
    #[allow(deprecated)]
    fn counts() {
        let mut cart = Cart::with_stock(&[("apple", 1)]);
        cart.add("apple", 1).unwrap();
        assert_eq!(cart.count(), 1);
    }

    #[test]
    #[should_panic(expected = "negative quantity")]
    fn rejects_negative() {
        must_positive(-1);
    }

    #[test]
    #[ignore = "needs the payment sandbox"]
    fn checks_out() {}
}
