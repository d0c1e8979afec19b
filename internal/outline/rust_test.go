package outline

import "testing"

func TestRust(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "impl blocks, generics, where clauses",
		path: "src/store.rs",
		src: `//! The store.
use std::fmt;

/// A store.
#[derive(Debug, Clone)]
pub struct Store<'a, T: Clone> {
    name: &'a str,
    items: Vec<T>,
}

pub(crate) enum Event { Put(String), Delete }

pub trait Backend: Send + Sync {
    fn get(&self, key: &str) -> Option<Vec<u8>>;
    fn put(&mut self, key: &str, value: &[u8]) -> Result<(), Error> {
        Ok(())
    }
}

impl<'a, T> Store<'a, T>
where
    T: Clone + fmt::Debug,
{
    pub const fn new(name: &'a str) -> Self {
        let c = '{';
        let s = "fn fake() {";
        Store { name, items: Vec::new() }
    }

    pub(super) async unsafe fn load<F>(&self, f: F) -> Vec<T>
    where
        F: Fn(&T) -> bool,
    {
        fn helper() {}
        self.items.iter().filter(|x| f(x)).cloned().collect()
    }
}

impl<T: Clone> fmt::Display for Store<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", r#"fn raw() { "quoted" }"#)
    }
}

const MAX: usize = 10;
static NAME: &str = "x";
pub type Result<T> = std::result::Result<T, Error>;

macro_rules! store {
    ($name:expr) => { Store::new($name) };
}

extern "C" {
    fn c_function(x: i32) -> i32;
}

/* fn commented() { /* nested */ } */
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_works() {}
}

pub mod api;
union Bits { i: u32, f: f32 }
`,
		want: []string{
			"6 struct Store", "11 enum Event", "13 trait Backend", "14 method get", "15 method put",
			"20 impl Store<'a, T>", "24 method new", "30 method load", "34 func helper",
			"39 impl fmt::Display for Store<'_, T>", "40 method fmt", "47 type Result", "49 macro store",
			"54 func c_function", "59 module tests", "63 func it_works", "66 module api", "67 union Bits",
		},
	}})
}
