//! The bundled SQLite is built with the flags of `.cargo/config.toml`: losing them (a build that
//! ignores the file, a changed variable name) would cost speed silently, so this test names them.
#![allow(clippy::unwrap_used)]

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;

#[derive(QueryableByName)]
struct CompileOption {
    #[diesel(sql_type = Text)]
    compile_options: String,
}

#[test]
fn the_bundled_sqlite_has_the_flags_of_the_cargo_config() {
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    let options: Vec<String> = diesel::sql_query("PRAGMA compile_options")
        .load::<CompileOption>(&mut conn)
        .unwrap()
        .into_iter()
        .map(|o| o.compile_options)
        .collect();
    for wanted in ["ENABLE_QPSG", "DEFAULT_MEMSTATUS=0", "THREADSAFE=2"] {
        assert!(
            options.iter().any(|o| o == wanted),
            "SQLite lacks {wanted}: {options:?}"
        );
    }
}
