//! The SQLite and PostgreSQL migrations must build the same schema in meaning: the same tables,
//! columns, types, nullability and named indexes. Needs `TEST_DATABASE_URL` (CI sets it).
#![allow(clippy::unwrap_used)]
mod common;
use common::{migrated, OwnFile, OwnSchema};

use std::collections::BTreeMap;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Text};
use leadhub_db::DbConnection;

/// The lead search's B-tree indexes, PostgreSQL's alone: SQLite's word index carries the same
/// filters (`lead_search`).
const POSTGRES_SEARCH_INDEXES: &[&str] = &[
    "leads_state_filter",
    "leads_source_filter",
    "leads_permit_status_filter",
    "leads_property_type_filter",
    "leads_city_filter",
    "leads_county_filter",
    "leads_work_type_filter",
    "leads_zip_filter",
    "leads_permit_date",
    "leads_visible",
    "leads_without_phone",
    "leads_without_email",
];

/// SQLite's own: the visibility of a lead by its id, which PostgreSQL answers from
/// `leads_visible` (docs/search.md).
const SQLITE_OWN_INDEXES: &[&str] = &["leads_live_team"];

/// Indexes both backends have, covering in each one's way: PostgreSQL `INCLUDE`s columns that
/// SQLite has as keys (and SQLite keys the partial index's own columns, its covering rule).
const COVERING_IN_EACH_WAY: &[&str] = &["leads_live_position"];

/// table -> column -> (type, not null)
type Columns = BTreeMap<String, BTreeMap<String, (String, bool)>>;
/// index name -> (table, unique, columns)
type Indexes = BTreeMap<String, (String, bool, String)>;

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct SqliteColumn {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    #[diesel(column_name = type_)]
    type_: String,
    #[diesel(sql_type = Integer)]
    notnull: i32,
    #[diesel(sql_type = Integer)]
    pk: i32,
}

#[derive(QueryableByName)]
struct SqliteIndex {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Integer)]
    unique: i32,
    #[diesel(sql_type = Text)]
    origin: String,
}

#[derive(QueryableByName)]
struct PgColumn {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
    #[diesel(sql_type = Bool)]
    not_null: bool,
}

#[derive(QueryableByName)]
struct PgIndex {
    #[diesel(sql_type = Text)]
    indexname: String,
    #[diesel(sql_type = Text)]
    tablename: String,
    #[diesel(sql_type = Text)]
    indexdef: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn normalise(ty: &str, primary_key: bool) -> String {
    match (ty.to_ascii_lowercase().as_str(), primary_key) {
        ("integer", true) | ("bigint", _) => "int64".into(),
        ("integer", false) => "int32".into(),
        ("text", _) => "text".into(),
        ("timestamp", _) | ("timestamp without time zone", _) => "timestamp".into(),
        ("boolean", _) => "bool".into(),
        ("double precision", _) => "float64".into(),
        ("blob", _) | ("bytea", _) => "bytes".into(),
        (other, _) => format!("unknown:{other}"),
    }
}

fn sqlite_schema(conn: &mut SqliteConnection) -> (Columns, Indexes) {
    let tables: Vec<Name> = diesel::sql_query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         AND name != '__diesel_schema_migrations' AND name NOT LIKE 'lead_search%'",
    )
    .load(conn)
    .unwrap();
    let mut columns = Columns::new();
    let mut indexes = Indexes::new();
    for t in tables {
        let cols: Vec<SqliteColumn> = diesel::sql_query(format!(
            "SELECT name, type AS type_, \"notnull\", pk FROM pragma_table_info('{}')",
            t.name
        ))
        .load(conn)
        .unwrap();
        let entry = columns.entry(t.name.clone()).or_default();
        let single_pk = cols.iter().filter(|c| c.pk > 0).count() == 1;
        for c in cols {
            let pk = c.pk > 0;
            entry.insert(
                c.name,
                (normalise(&c.type_, pk && single_pk), c.notnull == 1 || pk),
            );
        }
        let idx: Vec<SqliteIndex> = diesel::sql_query(format!(
            "SELECT name, \"unique\", origin FROM pragma_index_list('{}')",
            t.name
        ))
        .load(conn)
        .unwrap();
        for i in idx.into_iter().filter(|i| i.origin == "c") {
            let cols: Vec<IndexColumn> = diesel::sql_query(format!(
                "SELECT name FROM pragma_index_info('{}') ORDER BY seqno",
                i.name
            ))
            .load(conn)
            .unwrap();
            // An expression (`lower(city)`) has no column name: compared as "expr".
            let cols = cols
                .into_iter()
                .map(|c| c.name.unwrap_or_else(|| "expr".to_owned()))
                .collect::<Vec<_>>()
                .join(",");
            indexes.insert(i.name, (t.name.clone(), i.unique == 1, cols));
        }
    }
    (columns, indexes)
}

fn pg_schema(conn: &mut PgConnection) -> (Columns, Indexes) {
    let cols: Vec<PgColumn> = diesel::sql_query(
        "SELECT table_name::text, column_name::text, data_type::text, (is_nullable = 'NO') AS not_null \
         FROM information_schema.columns WHERE table_schema = current_schema() \
         AND table_name != '__diesel_schema_migrations' \
         AND NOT (table_name = 'leads' AND column_name = 'search_doc')",
    )
    .load(conn)
    .unwrap();
    // `leads.search_doc` is PostgreSQL's own search text (docs/search.md), as SQLite's
    // `lead_search` tables are SQLite's: neither is compared.
    let mut columns = Columns::new();
    for c in cols {
        columns
            .entry(c.table_name)
            .or_default()
            .insert(c.column_name, (normalise(&c.data_type, false), c.not_null));
    }
    let idx: Vec<PgIndex> = diesel::sql_query(
        "SELECT indexname::text, tablename::text, indexdef::text FROM pg_indexes \
         WHERE schemaname = current_schema() AND indexname NOT IN (SELECT conname FROM pg_constraint)",
    )
    .load(conn)
    .unwrap();
    let mut indexes = Indexes::new();
    // Each backend's own search index (SQLite: the FTS5 table `lead_search`) is not compared.
    for i in idx
        .into_iter()
        .filter(|i| !i.indexname.starts_with("lead_search"))
    {
        let cols = index_columns(&i.indexdef);
        indexes.insert(
            i.indexname,
            (i.tablename, i.indexdef.contains("UNIQUE"), cols),
        );
    }
    (columns, indexes)
}

/// The columns of a `CREATE INDEX ... (a, lower(b) NULLS FIRST, c)`, expressions as "expr" and
/// without their ordering words, as SQLite's index_info lists them.
fn index_columns(indexdef: &str) -> String {
    let Some((_, rest)) = indexdef.split_once('(') else {
        return String::new();
    };
    let (mut depth, mut part, mut parts) = (0, String::new(), Vec::new());
    for c in rest.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut part));
                continue;
            }
            _ => {}
        }
        part.push(c);
    }
    parts.push(part);
    parts
        .iter()
        .map(|p| {
            let column = p.split_whitespace().next().unwrap_or_default();
            if column.contains('(') {
                "expr".to_owned()
            } else {
                column.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(QueryableByName)]
struct IndexColumn {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    name: Option<String>,
}

#[test]
fn both_backends_build_the_same_schema() {
    let Some(schema) = OwnSchema::on_test_database("parity", "schema parity") else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let file = OwnFile::create("parity");
    let db = migrated(&file.url(), 1);
    let sqlite = runtime
        // Raw introspection SQL is no `SelectQuery`: it takes the writer's connection.
        .block_on(db.write(|conn| match conn {
            DbConnection::Sqlite(c) => Ok(sqlite_schema(c)),
            DbConnection::Postgres(_) => unreachable!(),
        }))
        .unwrap();

    let pg = migrated(&schema.url, 1);
    let postgres = runtime
        .block_on(pg.write(|conn| match conn {
            DbConnection::Postgres(c) => {
                let n: Vec<Count> = diesel::sql_query(
                    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()",
                )
                .load(c)
                .unwrap();
                assert!(n[0].n > 10, "migrations ran in the scoped schema");
                Ok(pg_schema(c))
            }
            DbConnection::Sqlite(_) => unreachable!(),
        }))
        .unwrap();
    drop(pg);
    schema.remove();
    file.remove();

    assert_eq!(
        sqlite.0.keys().collect::<Vec<_>>(),
        postgres.0.keys().collect::<Vec<_>>()
    );
    for (table, cols) in &sqlite.0 {
        assert_eq!(cols, &postgres.0[table], "columns of {table}");
    }
    // The lead search is each backend's own (docs/search.md): SQLite's word index (an FTS5 table,
    // not an index) holds the filters PostgreSQL answers from these B-tree indexes.
    let mut postgres_indexes = postgres.1.clone();
    for name in POSTGRES_SEARCH_INDEXES {
        assert!(
            postgres_indexes.remove(*name).is_some(),
            "PostgreSQL has no {name}: update POSTGRES_SEARCH_INDEXES"
        );
    }
    let mut sqlite_indexes = sqlite.1.clone();
    for name in SQLITE_OWN_INDEXES {
        assert!(
            sqlite_indexes.remove(*name).is_some(),
            "SQLite has no {name}: update SQLITE_OWN_INDEXES"
        );
    }
    for name in COVERING_IN_EACH_WAY {
        let (ours, theirs) = (sqlite_indexes.remove(*name), postgres_indexes.remove(*name));
        // The table, uniqueness and PostgreSQL's keys, which lead SQLite's.
        let (ours, theirs) = (ours.expect(name), theirs.expect(name));
        assert_eq!((&ours.0, ours.1), (&theirs.0, theirs.1), "{name}");
        assert!(
            ours.2.starts_with(&format!("{},", theirs.2)),
            "{name}: {ours:?} {theirs:?}"
        );
    }
    assert_eq!(sqlite_indexes, postgres_indexes, "named indexes");
    assert!(sqlite.1.contains_key("leads_one_per_property"));
}
