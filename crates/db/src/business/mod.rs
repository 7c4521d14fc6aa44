//! Businesses: duplicate-aware imports and business queries.

pub(crate) mod businesses;
