//! What a database's schema is, one line an object, for the tests that compare schemas.
use diesel::prelude::*;
use diesel::sql_types::Text;

#[derive(QueryableByName)]
pub struct Line {
    #[diesel(sql_type = Text)]
    pub line: String,
}

/// Everything a migration may create, one line each, in order: tables with their SQL (columns,
/// constraints), indexes, triggers, views (FTS5's shadow tables included). A table rebuilt and
/// renamed (`ALTER TABLE ... RENAME TO`) has its name quoted in its SQL: that is not a difference.
pub const SQLITE_SCHEMA: &str = "SELECT type || ' ' || name || ' ' || \
    replace(coalesce(sql, ''), 'CREATE TABLE \"' || name || '\"', 'CREATE TABLE ' || name) AS line \
    FROM sqlite_master WHERE tbl_name != '__diesel_schema_migrations' ORDER BY type, name";

/// The same for PostgreSQL, in its catalogs: columns with type, nullability and default;
/// constraints; indexes; views; triggers; functions.
pub const POSTGRES_SCHEMA: &str = "\
    SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable \
        || ' ' || coalesce(column_default, '') || ' ' || coalesce(generation_expression, '') AS line \
        FROM information_schema.columns WHERE table_schema = current_schema() \
        AND table_name != '__diesel_schema_migrations' \
    UNION ALL SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) \
        FROM pg_constraint WHERE connamespace = current_schema()::regnamespace \
        AND conrelid::regclass::text != '__diesel_schema_migrations' \
    UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() \
        AND tablename != '__diesel_schema_migrations' \
    UNION ALL SELECT 'view ' || viewname || ' ' || definition FROM pg_views \
        WHERE schemaname = current_schema() \
    UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t \
        JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = current_schema()::regnamespace \
        AND NOT t.tgisinternal \
    UNION ALL SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p \
        WHERE p.pronamespace = current_schema()::regnamespace \
    ORDER BY 1";

pub fn schema<C: Connection>(conn: &mut C, query: &str) -> Vec<String>
where
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Line>,
{
    let lines: Vec<Line> = diesel::sql_query(query).load(conn).unwrap();
    lines.into_iter().map(|l| l.line).collect()
}

/// A SQLite line without its SQL's comments and layout: the same schema written another way (a
/// column added by `ALTER TABLE` lands on the table's last line) reads the same.
pub fn sqlite_line(line: &str) -> String {
    let code: String = line
        .lines()
        .map(|l| l.split_once("--").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join(" ");
    let folded = code.split_whitespace().collect::<Vec<_>>().join(" ");
    ["(", ")", ","].iter().fold(folded, |s, p| {
        s.replace(&format!(" {p}"), p).replace(&format!("{p} "), p)
    })
}
