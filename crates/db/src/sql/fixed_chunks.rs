//! Multi-row statements in a few fixed sizes.
//!
//! A connection keeps a statement prepared only when its SQL is the same every time, and a
//! multi-row INSERT's SQL grows with its row count. Parsing a 400-row, 52-column INSERT each
//! time cost about a quarter of a 1000-lead batch's write on SQLite. Rows cut into chunks of
//! 500, 100, 10 and 1 give four shapes per statement, each parsed once per connection. Fewer,
//! larger statements also matter to SQLite's search index: its FTS5 trigger writes out its
//! pending terms at the end of every statement, whatever the statement's row count.

/// Rows per statement, largest first. 500 rows of 52 columns (26,000 parameters) stay below
/// every backend's parameter limit (SQLite 32,766, PostgreSQL 65,535).
pub(crate) const LARGE: usize = 500;
pub(crate) const MEDIUM: usize = 100;
pub(crate) const SMALL: usize = 10;

/// Runs `$body` once per fixed-size chunk of the slice `$rows`, in order, with `$chunk` bound
/// to a `&[T; N]` (`N` one of `LARGE`, `MEDIUM`, `SMALL`, 1): written once, compiled for each
/// size.
macro_rules! for_each_fixed_chunk {
    ($rows:expr, $chunk:ident => $body:block) => {{
        let mut rest = &$rows[..];
        while !rest.is_empty() {
            if let Some(($chunk, tail)) =
                rest.split_first_chunk::<{ $crate::sql::fixed_chunks::LARGE }>()
            {
                rest = tail;
                $body
            } else if let Some(($chunk, tail)) =
                rest.split_first_chunk::<{ $crate::sql::fixed_chunks::MEDIUM }>()
            {
                rest = tail;
                $body
            } else if let Some(($chunk, tail)) =
                rest.split_first_chunk::<{ $crate::sql::fixed_chunks::SMALL }>()
            {
                rest = tail;
                $body
            } else if let Some(($chunk, tail)) = rest.split_first_chunk::<1>() {
                rest = tail;
                $body
            }
        }
    }};
}
pub(crate) use for_each_fixed_chunk;

/// Inserts the rows of the slice `$rows` into `$table` in fixed-size chunks and evaluates to the
/// new rows' `$id`s in the order of the rows (`?` on a failed INSERT). Ids grow with each row of
/// an INSERT on both backends (SQLite's next rowid, PostgreSQL's sequence, under the writer's
/// locks), while RETURNING's row order is not promised: sorting each chunk's ids restores it.
macro_rules! insert_returning_ids {
    ($conn:expr, $table:expr, $id:expr, $rows:expr) => {{
        let mut ids: Vec<i64> = Vec::with_capacity($rows.len());
        $crate::sql::fixed_chunks::for_each_fixed_chunk!($rows, chunk => {
            let mut chunk_ids: Vec<i64> = $crate::pool::connection::on_backend!($conn, c =>
                diesel::insert_into($table).values(chunk).returning($id).get_results(c))?;
            chunk_ids.sort_unstable();
            ids.extend(chunk_ids);
        });
        ids
    }};
}
pub(crate) use insert_returning_ids;

#[cfg(test)]
mod tests {
    #[test]
    fn chunks_cover_every_row_once_in_order() {
        for len in [
            0, 1, 9, 10, 11, 99, 100, 101, 123, 499, 500, 501, 1000, 1234,
        ] {
            let rows: Vec<usize> = (0..len).collect();
            let mut seen = Vec::new();
            let mut sizes = Vec::new();
            for_each_fixed_chunk!(rows, chunk => {
                sizes.push(chunk.len());
                seen.extend_from_slice(chunk);
            });
            assert_eq!(seen, rows);
            assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
            assert!(sizes.iter().filter(|s| **s == 1).count() < 10, "{sizes:?}");
            assert!(sizes.iter().filter(|s| **s == 10).count() < 10, "{sizes:?}");
            assert!(sizes.iter().filter(|s| **s == 100).count() < 5, "{sizes:?}");
        }
    }
}
