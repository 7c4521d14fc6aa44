//! Reads of one row, grouped counts and writes of one statement, shared by the repositories.
use std::collections::HashMap;
use std::hash::Hash;

use diesel::dsl::Limit;
use diesel::query_builder::SelectQuery;
use diesel::query_dsl::methods::{ExecuteDsl, LimitDsl};
use diesel::query_dsl::LoadQuery;
use diesel::{OptionalExtension, QueryResult, RunQueryDsl};

use leadhub_domain::store::StoreResult;

use crate::{Database, DbConnection, ReadConnection};

/// Why a row did not convert to its domain type, as a query error: a stored value the code does
/// not know, or nothing (a conversion that cannot fail).
pub(crate) trait ConversionError {
    fn into_query_error(self) -> diesel::result::Error;
}

impl ConversionError for std::convert::Infallible {
    fn into_query_error(self) -> diesel::result::Error {
        match self {}
    }
}

impl ConversionError for diesel::result::Error {
    fn into_query_error(self) -> diesel::result::Error {
        self
    }
}

/// The first row `query` selects as a `R`, converted to its domain type; None when there is none.
pub(crate) fn first_as<R, T, Q>(conn: &mut ReadConnection<'_>, query: Q) -> QueryResult<Option<T>>
where
    Q: LimitDsl + RunQueryDsl<DbConnection>,
    Limit<Q>: SelectQuery + LoadQuery<'static, DbConnection, R>,
    R: TryInto<T>,
    R::Error: ConversionError,
{
    conn.first::<Q, R>(query)
        .optional()?
        .map(|r| r.try_into().map_err(ConversionError::into_query_error))
        .transpose()
}

impl Database {
    /// `first_as` on a reading connection.
    pub(crate) async fn find_first<R, T, Q>(&self, query: Q) -> StoreResult<Option<T>>
    where
        Q: LimitDsl + RunQueryDsl<DbConnection> + Send + 'static,
        Limit<Q>: SelectQuery + LoadQuery<'static, DbConnection, R>,
        R: TryInto<T>,
        R::Error: ConversionError,
        T: Send + 'static,
    {
        self.read(move |conn| first_as::<R, T, Q>(conn, query))
            .await
    }

    /// Runs one writing statement (an INSERT, UPDATE or DELETE) through `write`.
    pub(crate) async fn execute<Q>(&self, statement: Q) -> StoreResult<()>
    where
        Q: RunQueryDsl<DbConnection> + ExecuteDsl<DbConnection> + Send + 'static,
    {
        self.write(move |conn| statement.execute(conn).map(drop))
            .await
    }
}

/// Counts by key from a `(key, count_star())` query grouped by that key; a key the query did
/// not list counts 0.
pub(crate) struct Counts<K>(HashMap<K, i64>);

impl<K: Eq + Hash> Counts<K> {
    pub(crate) fn load<'q, Q>(conn: &mut ReadConnection<'_>, query: Q) -> QueryResult<Self>
    where
        Q: SelectQuery + RunQueryDsl<DbConnection> + LoadQuery<'q, DbConnection, (K, i64)>,
    {
        Ok(Counts(conn.load(query)?.into_iter().collect()))
    }

    pub(crate) fn of(&self, key: &K) -> i64 {
        self.0.get(key).copied().unwrap_or(0)
    }
}
