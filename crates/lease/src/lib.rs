//! Node ids leased from a store.

#![deny(missing_docs)]

mod error;
pub mod store;

pub use crate::error::{Error, Result};
pub use crate::store::{AnyStore, Store};
