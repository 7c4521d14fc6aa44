//! PostgreSQL: many rows in one INSERT, sent as one array per column and read back as rows by
//! `unnest`. One round trip and one short statement whatever the row count, where multi-row
//! VALUES cost a bound parameter per cell (52,000 for 1000 leads) and a round trip per chunk.
//! A lone row keeps its VALUES statement, which the connection keeps prepared (`sql_query` text
//! is parsed and planned by the server on every run).

/// Inserts the rows of the slice `$rows` into `$table` on the PostgreSQL connection `$pg` and
/// evaluates to the new rows' ids in row order (`?` on a failed INSERT). Each listed field of a
/// row goes to the column of the same name as an element of a `$sql_type` array. The rows are
/// inserted in order (`WITH ORDINALITY`, `ORDER BY`), so their ids grow in row order, as the
/// sequence hands them out: sorting the returned ids restores it.
macro_rules! unnest_insert_returning_ids {
    ($pg:expr, $table:literal, $rows:expr, [$($field:ident: $sql_type:ty),+ $(,)?]) => {{
        let rows = &$rows[..];
        let columns = [$(stringify!($field)),+].join(", ");
        let arrays = (1..=[$(stringify!($field)),+].len())
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let statement = format!(
            "INSERT INTO {} ({columns}) SELECT {columns} FROM unnest({arrays}) \
             WITH ORDINALITY AS v({columns}, n) ORDER BY n RETURNING id",
            $table
        );
        let query = diesel::sql_query(statement).into_boxed::<diesel::pg::Pg>();
        $(
            let query = query.bind::<diesel::sql_types::Array<$sql_type>, _>(
                rows.iter().map(|r| &r.$field).collect::<Vec<_>>(),
            );
        )+
        let mut ids: Vec<i64> = diesel::RunQueryDsl::load::<$crate::sql::unnest::NewId>(query, $pg)?
            .into_iter()
            .map(|r| r.id)
            .collect();
        ids.sort_unstable();
        ids
    }};
}
pub(crate) use unnest_insert_returning_ids;

/// A row's new id, as RETURNING gives it.
#[derive(diesel::QueryableByName)]
pub(crate) struct NewId {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub id: i64,
}
