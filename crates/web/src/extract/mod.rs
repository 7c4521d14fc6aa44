//! Request extractors that answer in the contract's shapes: 401 for credentials, 422 (every
//! problem, with full `loc` paths) for bodies, queries and paths, 413 for oversized bodies.
mod body;
mod caller;
mod fields;
mod path;
mod query;

pub use body::{depth, parse_json_body, BodyLimit, FromBody, ValidatedJson, MAX_DEPTH};
pub use caller::{bearer_credential, Authenticated, Caller};
pub use fields::Fields;
pub use path::{path_error_handler, query_error_handler};
pub use query::{FromQuery, Paging, QueryFields, ValidatedQuery};
