//! Statement helpers shared by every repository: error mapping, timestamps, one-row reads
//! and one-statement writes, fixed-size multi-row statements and PostgreSQL `unnest` inserts.

pub(crate) mod error;
pub(crate) mod fixed_chunks;
pub(crate) mod simple;
pub(crate) mod time;
pub(crate) mod unnest;

/// `s` as a literal inside a LIKE pattern (escape character `\`): its `%`, `_` and `\` match
/// themselves.
pub(crate) fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}
