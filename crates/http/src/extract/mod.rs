//! Request extractors that answer in the contract's shapes: 401 for credentials, 422 (every
//! problem, with full `loc` paths) for bodies, queries and paths, 413 for oversized bodies.
//! Each also tells apistos what it adds to an operation (`ApiComponent`).
mod body;
mod caller;
mod idempotent;
pub mod json_text;
mod lax;
mod path;
pub mod problems;
mod query;
pub mod rules;

pub use body::{read_body, refuse_nul, BodyLimit, RawBody, RequestBody, ValidatedJson};
pub use caller::{bearer_credential, Authenticated, Caller};
pub use idempotent::IdempotentRequest;
pub use json_text::{check_json, MAX_DEPTH};
pub use lax::{json_type, Lax, LaxValue, Mismatch};
pub use path::{path_error_handler, query_error_handler, PathText};
pub use query::{
    flat_problems, iso_timestamp, read_query, timestamp, PageQuery, Paging, RequestQuery,
    ValidatedQuery, MAX_PAGE,
};
