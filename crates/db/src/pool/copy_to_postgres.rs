//! `leadhub copy-to`: a SQLite deployment's data into a new PostgreSQL database, for the day it
//! outgrows one process. Every table both schemas hold is copied as it is (ids, hashes, times),
//! from one read snapshot of SQLite into one PostgreSQL transaction: the copy is all or nothing.
//!
//! The table and column lists come from PostgreSQL's catalog after migrating both databases
//! with this binary, so a table or column added by a later migration is copied without a change
//! here. Rows travel as JSON (`json_object` in SQLite, `json_populate_recordset` in PostgreSQL):
//! each value converts by its column's type, without a row struct per table.
use std::collections::{BTreeMap, BTreeSet};

use diesel::connection::DefaultLoadingMode;
use diesel::pg::PgConnection;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};

use crate::pool::connection::{open_sqlite_file, with_connect_timeout, Database, DbError};

/// Filled by PostgreSQL's own triggers as the leads arrive (migration 15's rollup); copying it
/// too would count every lead twice. The copy checks that the triggers came to SQLite's figures.
const ROLLUP: &str = "lead_daily_counts";
/// Kept by each database's migrations, not data.
const MIGRATIONS_TABLE: &str = "__diesel_schema_migrations";
/// Rows a statement carries: a few MB of JSON for the widest table, `leads`.
const ROWS_A_STATEMENT: usize = 500;
/// SQLite's functions take at most 127 arguments: `json_object` gets a table's columns in
/// groups this size (a name and a value each), joined by `json_patch`.
const COLUMNS_AN_OBJECT: usize = 60;

#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("leadhub copy-to copies a SQLite database: DATABASE_URL must be sqlite://PATH")]
    SourceNotSqlite,
    #[error("there is no SQLite database at {0}: set DATABASE_URL to the deployment's")]
    NoSource(String),
    #[error("leadhub copy-to copies into PostgreSQL: name a postgres:// URL")]
    TargetNotPostgres,
    // Transparent: the connection error is the message, said once (`{:#}` prints a source too).
    #[error(transparent)]
    Connect(#[from] DbError),
    #[error("the PostgreSQL database holds data already ({0} has rows): copy into a new, empty database")]
    TargetNotEmpty(String),
    #[error("the two databases' tables differ ({0}); run this leadhub's `migrate` on both")]
    SchemaDiffers(String),
    #[error("the copy failed and nothing was written to PostgreSQL: {0}")]
    Copy(String),
}

impl From<diesel::result::Error> for CopyError {
    fn from(e: diesel::result::Error) -> Self {
        CopyError::Copy(e.to_string())
    }
}

/// One table copied and its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopiedTable {
    pub name: String,
    pub rows: i64,
}

/// Migrates both databases, then copies every row of `source_url` (`sqlite://PATH`) into
/// `target_url` (`postgres://...`), which must hold no data; returns the tables in the order
/// they were written. `progress` hears each table's rows written so far, a statement at a time.
/// Nothing is written when anything fails. The copy is of the moment it starts: a server
/// writing meanwhile keeps those writes in SQLite only, so stop it first.
pub fn copy_sqlite_to_postgres(
    source_url: &str,
    target_url: &str,
    progress: &mut dyn FnMut(&str, i64),
) -> Result<Vec<CopiedTable>, CopyError> {
    let path = source_url
        .strip_prefix("sqlite://")
        .ok_or(CopyError::SourceNotSqlite)?;
    // Opening a path that is not there would make an empty database, and copy nothing.
    if !std::path::Path::new(path).is_file() {
        return Err(CopyError::NoSource(path.to_owned()));
    }
    if !(target_url.starts_with("postgres://") || target_url.starts_with("postgresql://")) {
        return Err(CopyError::TargetNotPostgres);
    }
    Database::connect(source_url, 1)?.migrate()?;
    Database::connect(target_url, 1)?.migrate()?;
    let mut sqlite = open_sqlite_file(path).map_err(CopyError::Copy)?;
    let mut postgres = PgConnection::establish(&with_connect_timeout(target_url))
        .map_err(|e| CopyError::Copy(e.to_string()))?;
    let tables = tables_of(&mut postgres)?;
    check_source(&mut sqlite, &tables)?;
    // One read transaction: every table is read from the same snapshot.
    sqlite.transaction(|sqlite| {
        postgres.transaction(|postgres| copy_tables(sqlite, postgres, &tables, progress))
    })
}

/// A table to copy: its columns as PostgreSQL has them (generated ones left out).
struct Table {
    name: String,
    columns: Vec<Column>,
    /// Columns naming a row of the same table (`leads.merged_into_id`): written in a second pass,
    /// once every row they may name is there.
    self_references: Vec<String>,
    /// Columns a sequence numbers (`BIGSERIAL`), set past the copied ids afterwards.
    numbered: Vec<String>,
}

struct Column {
    name: String,
    binary: bool,
}

#[derive(QueryableByName)]
struct Named {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct ColumnRow {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
    #[diesel(sql_type = Nullable<Text>)]
    default_value: Option<String>,
}

#[derive(QueryableByName)]
struct Reference {
    #[diesel(sql_type = Text)]
    child: String,
    #[diesel(sql_type = Text)]
    parent: String,
    #[diesel(sql_type = Text)]
    column: String,
}

#[derive(QueryableByName)]
struct Json {
    #[diesel(sql_type = Text)]
    row: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn copy_failed(table: &str) -> impl Fn(diesel::result::Error) -> CopyError + '_ {
    move |e| CopyError::Copy(format!("{table}: {e}"))
}

/// PostgreSQL's tables, parents before the tables that name them.
fn tables_of(pg: &mut PgConnection) -> Result<Vec<Table>, CopyError> {
    let failed = copy_failed("the catalog");
    let names: Vec<Named> = diesel::sql_query(
        "SELECT table_name::text AS name FROM information_schema.tables \
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
    )
    .load(pg)
    .map_err(&failed)?;
    let references: Vec<Reference> = diesel::sql_query(
        "SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, \
                a.attname::text AS column \
         FROM pg_constraint c \
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey) \
         WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace",
    )
    .load(pg)
    .map_err(&failed)?;
    let mut parents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut tables = Vec::new();
    for Named { name } in names {
        if name == MIGRATIONS_TABLE || name == ROLLUP {
            continue;
        }
        let columns: Vec<ColumnRow> = diesel::sql_query(
            "SELECT column_name::text AS name, data_type::text AS data_type, \
                    column_default::text AS default_value \
             FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1 \
               AND is_generated = 'NEVER' ORDER BY ordinal_position",
        )
        .bind::<Text, _>(&name)
        .load(pg)
        .map_err(&failed)?;
        let mine = || references.iter().filter(|r| r.child == name);
        parents.insert(
            name.clone(),
            mine()
                .filter(|r| r.parent != name)
                .map(|r| r.parent.clone())
                .collect(),
        );
        tables.push(Table {
            self_references: mine()
                .filter(|r| r.parent == name)
                .map(|r| r.column.clone())
                .collect(),
            numbered: columns
                .iter()
                .filter(|c| c.default_value.as_deref().is_some_and(is_sequence))
                .map(|c| c.name.clone())
                .collect(),
            columns: columns
                .into_iter()
                .map(|c| Column {
                    binary: c.data_type == "bytea",
                    name: c.name,
                })
                .collect(),
            name,
        });
    }
    parents_first(tables, &parents)
}

fn is_sequence(default: &str) -> bool {
    default.starts_with("nextval(")
}

/// Orders `tables` so that each comes after the tables its foreign keys name.
fn parents_first(
    mut left: Vec<Table>,
    parents: &BTreeMap<String, BTreeSet<String>>,
) -> Result<Vec<Table>, CopyError> {
    let mut ordered: Vec<Table> = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let placed: BTreeSet<&str> = ordered.iter().map(|t| t.name.as_str()).collect();
        let ready = left.iter().position(|t| {
            parents
                .get(&t.name)
                .is_none_or(|p| p.iter().all(|p| placed.contains(p.as_str())))
        });
        match ready {
            Some(i) => ordered.push(left.remove(i)),
            None => {
                let names: Vec<&str> = left.iter().map(|t| t.name.as_str()).collect();
                return Err(CopyError::SchemaDiffers(format!(
                    "the foreign keys of {} go round in a circle",
                    names.join(", ")
                )));
            }
        }
    }
    Ok(ordered)
}

/// Every table and column to copy exists in SQLite too.
fn check_source(sqlite: &mut SqliteConnection, tables: &[Table]) -> Result<(), CopyError> {
    let mut missing = Vec::new();
    for table in tables {
        let has: BTreeSet<String> = diesel::sql_query("SELECT name FROM pragma_table_info(?)")
            .bind::<Text, _>(&table.name)
            .load::<Named>(sqlite)
            .map_err(copy_failed(&table.name))?
            .into_iter()
            .map(|n| n.name)
            .collect();
        if has.is_empty() {
            missing.push(format!("no table {} in SQLite", table.name));
            continue;
        }
        missing.extend(
            table
                .columns
                .iter()
                .filter(|c| !has.contains(&c.name))
                .map(|c| format!("no column {}.{} in SQLite", table.name, c.name)),
        );
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CopyError::SchemaDiffers(missing.join(", ")))
    }
}

fn copy_tables(
    sqlite: &mut SqliteConnection,
    pg: &mut PgConnection,
    tables: &[Table],
    progress: &mut dyn FnMut(&str, i64),
) -> Result<Vec<CopiedTable>, CopyError> {
    for name in tables.iter().map(|t| t.name.as_str()).chain([ROLLUP]) {
        if holds_rows(pg, name)? {
            return Err(CopyError::TargetNotEmpty(name.to_owned()));
        }
    }
    let mut copied = Vec::with_capacity(tables.len());
    for table in tables {
        let rows = copy_rows(sqlite, pg, table, progress)?;
        for column in &table.numbered {
            continue_numbering(pg, &table.name, column)?;
        }
        copied.push(CopiedTable {
            name: table.name.clone(),
            rows,
        });
    }
    same_rollup(sqlite, pg)?;
    Ok(copied)
}

/// Whether `table` has a row; reads one at most.
fn holds_rows(conn: &mut PgConnection, table: &str) -> Result<bool, CopyError> {
    let sql = format!(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM {} LIMIT 1) AS one",
        quoted(table)
    );
    diesel::sql_query(sql)
        .get_result::<Count>(conn)
        .map(|c| c.n > 0)
        .map_err(copy_failed(table))
}

/// Writes `table`'s rows; returns how many.
fn copy_rows(
    sqlite: &mut SqliteConnection,
    pg: &mut PgConnection,
    table: &Table,
    progress: &mut dyn FnMut(&str, i64),
) -> Result<i64, CopyError> {
    let t = quoted(&table.name);
    let later = |c: &Column| table.self_references.contains(&c.name);
    let now: Vec<&Column> = table.columns.iter().filter(|c| !later(c)).collect();
    let names: Vec<String> = now.iter().map(|c| quoted(&c.name)).collect();
    let names = names.join(", ");
    let insert = format!(
        "INSERT INTO {t} ({names}) SELECT {names} FROM json_populate_recordset(NULL::{t}, $1::json)"
    );
    let rows = stream_json(sqlite, &table.name, &now, "", |chunk, so_far| {
        write_chunk(pg, &table.name, &insert, chunk)?;
        progress(&table.name, so_far);
        Ok(())
    })?;
    // Second pass: the rows' references to rows of their own table, now all written.
    let id = Column {
        name: "id".to_owned(),
        binary: false,
    };
    for column in table.columns.iter().filter(|c| later(c)) {
        let c = quoted(&column.name);
        let update = format!(
            "UPDATE {t} SET {c} = v.{c} FROM json_populate_recordset(NULL::{t}, $1::json) v \
             WHERE {t}.id = v.id"
        );
        let filter = format!("WHERE {c} IS NOT NULL");
        stream_json(sqlite, &table.name, &[&id, column], &filter, |chunk, _| {
            write_chunk(pg, &table.name, &update, chunk)
        })?;
    }
    Ok(rows)
}

/// Reads `table`'s rows from SQLite as JSON objects of `columns`, handing them on as JSON
/// arrays of `ROWS_A_STATEMENT` rows with the rows read so far; returns how many rows it read.
fn stream_json(
    sqlite: &mut SqliteConnection,
    table: &str,
    columns: &[&Column],
    filter: &str,
    mut write: impl FnMut(&str, i64) -> Result<(), CopyError>,
) -> Result<i64, CopyError> {
    let failed = copy_failed(table);
    let objects: Vec<String> = columns
        .chunks(COLUMNS_AN_OBJECT)
        .map(|group| {
            let pairs: Vec<String> = group
                .iter()
                .map(|c| format!("'{}', {}", c.name, sqlite_value(c)))
                .collect();
            format!("json_object({})", pairs.join(", "))
        })
        .collect();
    // `json_patch` drops the keys whose value is null; a missing key is a NULL to PostgreSQL.
    let row = objects
        .into_iter()
        .reduce(|all, next| format!("json_patch({all}, {next})"))
        .unwrap_or_else(|| "json_object()".to_owned());
    let sql = format!("SELECT {row} AS row FROM {} {filter}", quoted(table));
    let mut chunk = String::from("[");
    let (mut rows, mut in_chunk) = (0i64, 0usize);
    for read in diesel::sql_query(sql)
        .load_iter::<Json, DefaultLoadingMode>(sqlite)
        .map_err(&failed)?
    {
        let Json { row } = read.map_err(&failed)?;
        if in_chunk > 0 {
            chunk.push(',');
        }
        chunk.push_str(&row);
        rows += 1;
        in_chunk += 1;
        if in_chunk == ROWS_A_STATEMENT {
            chunk.push(']');
            write(&chunk, rows)?;
            chunk.truncate(1);
            in_chunk = 0;
        }
    }
    if in_chunk > 0 {
        chunk.push(']');
        write(&chunk, rows)?;
    }
    Ok(rows)
}

/// The SQL of one column's value in SQLite's JSON: bytes as PostgreSQL's hex form of `bytea`.
fn sqlite_value(column: &Column) -> String {
    let name = quoted(&column.name);
    if column.binary {
        format!("CASE WHEN {name} IS NULL THEN NULL ELSE '\\x' || hex({name}) END")
    } else {
        name
    }
}

/// Runs `sql`, a statement of `table` reading its rows from `$1`, with `chunk` as the rows.
fn write_chunk(
    pg: &mut PgConnection,
    table: &str,
    sql: &str,
    chunk: &str,
) -> Result<(), CopyError> {
    diesel::sql_query(sql)
        .bind::<Text, _>(chunk)
        .execute(pg)
        .map(drop)
        .map_err(copy_failed(table))
}

/// The next row a sequence numbers comes after the copied ones (an empty table starts at 1).
fn continue_numbering(pg: &mut PgConnection, table: &str, column: &str) -> Result<(), CopyError> {
    let sql = format!(
        "SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(MAX({c}), 1), MAX({c}) IS NOT NULL) \
         FROM {t}",
        c = quoted(column),
        t = quoted(table)
    );
    diesel::sql_query(sql)
        .bind::<Text, _>(table)
        .bind::<Text, _>(column)
        .execute(pg)
        .map(|_| ())
        .map_err(copy_failed(table))
}

/// PostgreSQL's triggers built the dashboard's rollup from the copied leads: it must hold
/// SQLite's figures (rows of no leads left out: SQLite keeps them at 0), or the copy is refused.
fn same_rollup(sqlite: &mut SqliteConnection, pg: &mut PgConnection) -> Result<(), CopyError> {
    let figures = "SELECT json_object('scope', team_scope, 'source', source, \
                   'enrichment', enrichment_status, 'status', status, 'day', day, 'n', n) AS row \
                   FROM lead_daily_counts WHERE n <> 0";
    let ours: BTreeSet<String> = diesel::sql_query(figures)
        .load::<Json>(sqlite)
        .map_err(copy_failed(ROLLUP))?
        .into_iter()
        .map(|j| j.row)
        .collect();
    let theirs = "SELECT json_build_object('scope', team_scope, 'source', source, \
                  'enrichment', enrichment_status, 'status', status, 'day', day, 'n', n)::text \
                  AS row FROM lead_daily_counts WHERE n <> 0";
    let theirs: BTreeSet<String> = diesel::sql_query(theirs)
        .load::<Json>(pg)
        .map_err(copy_failed(ROLLUP))?
        .into_iter()
        .map(|j| normalized(&j.row))
        .collect();
    let ours: BTreeSet<String> = ours.iter().map(|r| normalized(r)).collect();
    if ours == theirs {
        Ok(())
    } else {
        Err(CopyError::Copy(format!(
            "{ROLLUP}: PostgreSQL's triggers counted {} groups of leads, SQLite has {}",
            theirs.len(),
            ours.len()
        )))
    }
}

/// The same JSON object written the same way (the two databases space it differently).
fn normalized(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| json.to_owned())
}

/// A name as an SQL identifier; the names come from PostgreSQL's catalog.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str) -> Table {
        Table {
            name: name.to_owned(),
            columns: Vec::new(),
            self_references: Vec::new(),
            numbered: Vec::new(),
        }
    }

    #[test]
    fn parents_come_before_the_tables_that_name_them() {
        let parents = BTreeMap::from([
            (
                "leads".to_owned(),
                BTreeSet::from(["teams".to_owned(), "users".to_owned()]),
            ),
            ("teams".to_owned(), BTreeSet::from(["users".to_owned()])),
            ("users".to_owned(), BTreeSet::new()),
        ]);
        let ordered = parents_first(
            vec![table("leads"), table("teams"), table("users")],
            &parents,
        )
        .ok()
        .map(|t| t.into_iter().map(|t| t.name).collect::<Vec<_>>());
        assert_eq!(
            ordered,
            Some(vec!["users".into(), "teams".into(), "leads".into()])
        );
    }

    #[test]
    fn a_circle_of_foreign_keys_is_refused() {
        let parents = BTreeMap::from([
            ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
            ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
        ]);
        let refused = parents_first(vec![table("a"), table("b")], &parents);
        assert!(matches!(refused, Err(CopyError::SchemaDiffers(_))));
    }
}
