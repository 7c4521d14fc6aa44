//! The JSON request path on arbitrary bytes: what `ValidatedJson<T>` does with a body once it has
//! been read (`read_body`: checked as JSON, read by serde, validated), for every request body
//! type of the API. The libFuzzer counterpart of the proptest suite
//! `crates/web/tests/fuzz_bodies.rs`, with the same checks (`crates/web/tests/support/request_bodies.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/web/tests/support/request_bodies.rs"]
mod request_bodies;

fuzz_target!(|body: &[u8]| request_bodies::check_then_read(body));
