//! Request extractors that answer in the contract's shapes: 401 for credentials, 422 (every
//! problem, with full `loc` paths) for bodies, queries and paths, 413 for oversized bodies.
//! Each also tells apistos what it adds to an operation (`ApiComponent`).

/// The `ApiComponent` methods of an extractor that adds no schema of its own to the document,
/// only parameters or a security scheme.
macro_rules! no_schema {
    () => {
        fn child_schemas() -> Vec<(String, apistos::reference_or::ReferenceOr<apistos::Schema>)> {
            Vec::new()
        }

        fn schema() -> Option<(String, apistos::reference_or::ReferenceOr<apistos::Schema>)> {
            None
        }
    };
}

mod body;
mod call;
mod caller;
mod idempotent;
pub mod json_text;
mod lax;
mod path;
pub mod problems;
mod query;
pub mod rules;

pub use body::{read_body, refuse_nul, BodyLimit, RawBody, RequestBody, ValidatedJson};
pub use call::{Call, PathIds};
pub use caller::{bearer_credential, Authenticated, Caller};
pub use idempotent::IdempotentRequest;
pub use json_text::{check_json, MAX_DEPTH};
pub use lax::{json_type, Lax, LaxValue, Mismatch};
pub use path::{path_error_handler, query_error_handler, PathText};
pub use query::{
    flat_problems, iso_timestamp, read_query, timestamp, timestamp_on, PageQuery, Paging,
    RequestQuery, ValidatedQuery, MAX_PAGE,
};
