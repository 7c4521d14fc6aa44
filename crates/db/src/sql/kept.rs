//! UPDATEs kept prepared, which diesel would prepare afresh each time.
//!
//! diesel keeps a statement prepared (per connection, keyed by its SQL) unless walking it says
//! it is unsafe to, and its UPDATE always says so, since an `AsChangeset` with optional columns
//! changes its SQL from one call to the next. For an UPDATE of a few fixed shapes, preparing is
//! pure cost, and on SQLite a large one: preparing an UPDATE of `leads` compiles every trigger
//! of the table (the search index's and the dashboard counts'), which perf showed as about a
//! quarter of the lead change writer's time (intake merges and enrichment write `leads` the
//! same way). (Overriding `is_safe_to_cache_prepared`
//! on a wrapper does not help: diesel asks it of `&T`, which walks the statement instead.)
use diesel::backend::Backend;
use diesel::query_builder::{AsChangeset, AstPass, QueryFragment, QueryId};
use diesel::query_source::Table;
use diesel::result::{EmptyChangeset, Error};
use diesel::{QueryResult, RunQueryDsl};

/// `UPDATE table SET values WHERE filter`, kept prepared by its SQL text: the cache key is the
/// SQL, and the values are bound afresh on every run. Each shape of the statement (an `Option`
/// in the changeset skipping its column makes two) is kept on every connection for as long as
/// it lives, so only for changesets with a handful of shapes, never for column lists that
/// follow the caller's input.
pub(crate) fn kept_update<T, W, V>(
    table: T,
    filter: W,
    values: V,
) -> KeptUpdate<T::FromClause, W, V::Changeset>
where
    T: Table,
    V: AsChangeset<Target = T>,
{
    KeptUpdate {
        from: table.from_clause(),
        filter,
        values: values.as_changeset(),
    }
}

/// See `kept_update`.
pub(crate) struct KeptUpdate<F, W, V> {
    from: F,
    filter: W,
    values: V,
}

impl<F, W, V, DB> QueryFragment<DB> for KeptUpdate<F, W, V>
where
    DB: Backend,
    F: QueryFragment<DB>,
    W: QueryFragment<DB>,
    V: QueryFragment<DB>,
{
    /// diesel's UPDATE, less its `unsafe_to_cache_prepared`.
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        if self.values.is_noop(out.backend())? {
            return Err(Error::QueryBuilderError(Box::new(EmptyChangeset)));
        }
        out.push_sql("UPDATE ");
        self.from.walk_ast(out.reborrow())?;
        out.push_sql(" SET ");
        self.values.walk_ast(out.reborrow())?;
        out.push_sql(" WHERE ");
        self.filter.walk_ast(out.reborrow())
    }
}

/// No static id: diesel then keys the kept statement by its SQL and bind types.
impl<F, W, V> QueryId for KeptUpdate<F, W, V> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<F, W, V, Conn> RunQueryDsl<Conn> for KeptUpdate<F, W, V> {}

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    use diesel::SqliteConnection;

    use super::*;

    diesel::table! {
        things (id) {
            id -> BigInt,
            name -> Text,
            n -> BigInt,
        }
    }

    #[test]
    fn a_kept_update_writes_each_calls_values_and_counts_its_rows() {
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        conn.batch_execute(
            "CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER NOT NULL);
             INSERT INTO things VALUES (1, 'a', 0), (2, 'b', 0);",
        )
        .unwrap();
        let set = |conn: &mut SqliteConnection, id: i64, name: &str| {
            kept_update(
                things::table,
                things::id.eq(id),
                (things::name.eq(name), things::n.eq(things::n + 1)),
            )
            .execute(conn)
            .unwrap()
        };
        // The same SQL three times, each with its own values.
        assert_eq!(set(&mut conn, 1, "x"), 1);
        assert_eq!(set(&mut conn, 2, "y"), 1);
        assert_eq!(set(&mut conn, 1, "z"), 1);
        assert_eq!(set(&mut conn, 3, "none"), 0);
        let rows: Vec<(i64, String, i64)> =
            things::table.order(things::id).load(&mut conn).unwrap();
        assert_eq!(rows, vec![(1, "z".into(), 2), (2, "y".into(), 1)]);
    }

    #[test]
    fn a_kept_update_is_kept_prepared_and_diesels_is_not() {
        let same = kept_update(things::table, things::id.eq(1), things::n.eq(2));
        assert!(
            QueryFragment::<diesel::sqlite::Sqlite>::is_safe_to_cache_prepared(
                &&same,
                &diesel::sqlite::Sqlite
            )
            .unwrap()
        );
        let diesels = diesel::update(things::table.find(1)).set(things::n.eq(2));
        assert!(
            !QueryFragment::<diesel::sqlite::Sqlite>::is_safe_to_cache_prepared(
                &&diesels,
                &diesel::sqlite::Sqlite
            )
            .unwrap()
        );
    }
}
