//! Statement helpers shared by every repository: error mapping, timestamps, one-row reads
//! and one-statement writes, fixed-size multi-row statements, statements kept prepared and
//! PostgreSQL `unnest` inserts.

pub(crate) mod error;
pub(crate) mod fixed_chunks;
pub(crate) mod kept;
pub(crate) mod simple;
pub(crate) mod time;
pub(crate) mod unnest;

/// A raw statement with `$N` parameters for `conn`'s backend: SQLite numbers `$N` by first
/// appearance and `?N` by N, so it gets the latter (a statement that uses a parameter twice,
/// or out of order, means the same on both).
pub(crate) fn numbered(conn: &crate::DbConnection, sql: &str) -> String {
    match conn {
        crate::DbConnection::Sqlite(_) => sql.replace('$', "?"),
        crate::DbConnection::Postgres(_) => sql.to_owned(),
    }
}

/// `s` as a literal inside a LIKE pattern (escape character `\`): its `%`, `_` and `\` match
/// themselves.
pub(crate) fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Narrows `$q` by a filter's `visible_teams` (Some: the unassigned rows, which every user may
/// see, and those teams' rows) and `team_id` over the nullable `$team_column`: leads and
/// businesses are seen by the same rule.
macro_rules! narrow_to_teams {
    ($q:ident, $team_column:expr, $visible_teams:expr, $team_id:expr) => {
        if let Some(teams) = $visible_teams {
            $q = $q.filter(
                $team_column
                    .is_null()
                    .or($team_column.eq_any(teams.clone())),
            );
        }
        if let Some(t) = $team_id {
            $q = $q.filter($team_column.eq(t));
        }
    };
}
pub(crate) use narrow_to_teams;
