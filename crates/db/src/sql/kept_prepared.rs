//! Statements diesel would prepare afresh every time, kept in the connection's statement cache.
//!
//! diesel caches no UPDATE: a changeset may leave out its `None` fields, so one Rust type can
//! stand for many SQL texts, and an unbounded number of them would fill the cache. Preparing an
//! UPDATE of `leads` is costly on SQLite (it compiles the search and dashboard triggers its
//! columns wake), and a lead change ran two of them. A statement wrapped here is cached under
//! its SQL text (diesel's key for a query without a static id), so a text prepared once is
//! reused and two texts never share an entry. Wrap only statements of a few fixed shapes: a
//! changeset with `treat_none_as_null`, fixed column tuples, no `IN (...)` of varying length.
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::QueryResult;

/// `statement`, cached by its SQL text once prepared.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptPrepared<Q>(pub(crate) Q);

impl<Q, DB> QueryFragment<DB> for KeptPrepared<Q>
where
    DB: Backend,
    Q: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

/// No static id: the cache is keyed by the SQL text (and bind types), never by this type.
impl<Q> QueryId for KeptPrepared<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, Conn> diesel::RunQueryDsl<Conn> for KeptPrepared<Q> {}
