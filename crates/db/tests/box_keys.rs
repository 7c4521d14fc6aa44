//! The migration that writes box addresses' keys in Publication 28's order ("PO BOX 55", not
//! "55 PO BOX") rewrites the stored leads' keys, drops the cached geocoder answers of the old
//! keys, leaves every other key alone, and its `down.sql` puts them back. On both backends
//! (PostgreSQL with `TEST_DATABASE_URL`).
#![allow(clippy::unwrap_used)]
mod common;
use common::{OwnFile, OwnSchema};

use diesel::backend::Backend;
use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text};
use diesel_migrations::MigrationHarness;
use leadhub_db::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};

const MIGRATION: &str = "box_addresses_in_usps_order";

#[derive(QueryableByName, Debug, PartialEq)]
struct Keys {
    #[diesel(sql_type = Nullable<Text>)]
    street_key: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    address_key: Option<String>,
}

#[derive(QueryableByName, Debug, PartialEq)]
struct Cached {
    #[diesel(sql_type = Text)]
    address_key: String,
}

const LEADS_BEFORE: [(&str, Option<&str>); 6] = [
    ("55 PO BOX", Some("55 PO BOX|78701")),
    ("15 RR 2 BOX", Some("15 RR 2 BOX|AUSTIN|TX")),
    // Merged away: it gave up its address_key.
    ("9 HC 1 BOX", None),
    ("123 N MAIN ST #4", Some("123 N MAIN ST #4|78701")),
    ("100 JUKE BOX", Some("100 JUKE BOX|78701")),
    ("7 OLD PO BOX", Some("7 OLD PO BOX|78701")),
];

const LEADS_AFTER: [(&str, Option<&str>); 6] = [
    ("PO BOX 55", Some("PO BOX 55|78701")),
    ("RR 2 BOX 15", Some("RR 2 BOX 15|AUSTIN|TX")),
    ("HC 1 BOX 9", None),
    ("123 N MAIN ST #4", Some("123 N MAIN ST #4|78701")),
    ("100 JUKE BOX", Some("100 JUKE BOX|78701")),
    ("7 OLD PO BOX", Some("7 OLD PO BOX|78701")),
];

fn seed<C: Connection + SimpleConnection>(conn: &mut C) {
    let mut sql = String::from(
        "INSERT INTO users (id, user_id, email, created_at, updated_at) VALUES \
         (1, 'usr_1', 'a@example.com', '2026-01-01 00:00:00', '2026-01-01 00:00:00');",
    );
    for (i, (street, address)) in LEADS_BEFORE.iter().enumerate() {
        let address = address.map_or("NULL".to_owned(), |a| format!("'{a}'"));
        sql.push_str(&format!(
            "INSERT INTO leads (id, dedupe_scope, enrichment_status, created_by, created_at, \
             updated_at, street_key, address_key) VALUES ({}, 0, 'complete', 1, \
             '2026-01-01 00:00:00', '2026-01-01 00:00:00', '{street}', {address});",
            i + 1
        ));
    }
    for key in ["55 PO BOX|78701", "123 N MAIN ST #4|78701"] {
        sql.push_str(&format!(
            "INSERT INTO geocode_cache (address_key, source, found, created_at) \
             VALUES ('{key}', 'census', FALSE, '2026-01-01 00:00:00');"
        ));
    }
    conn.batch_execute(&sql).unwrap();
}

fn read<C>(conn: &mut C) -> (Vec<(String, Option<String>)>, Vec<String>)
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Keys>,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Cached>,
{
    let leads: Vec<Keys> =
        diesel::sql_query("SELECT street_key, address_key FROM leads ORDER BY id")
            .load(conn)
            .unwrap();
    let cached: Vec<Cached> =
        diesel::sql_query("SELECT address_key FROM geocode_cache ORDER BY address_key")
            .load(conn)
            .unwrap();
    (
        leads
            .into_iter()
            .map(|k| (k.street_key.unwrap(), k.address_key))
            .collect(),
        cached.into_iter().map(|c| c.address_key).collect(),
    )
}

fn owned(leads: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
    leads
        .iter()
        .map(|(s, a)| (s.to_string(), a.map(str::to_owned)))
        .collect()
}

fn check<DB, C, S>(conn: &mut C, migrations: impl Fn() -> S)
where
    DB: Backend,
    C: Connection<Backend = DB> + MigrationHarness<DB> + SimpleConnection,
    S: MigrationSource<DB>,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Keys>,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Cached>,
{
    let next = |conn: &mut C| {
        let pending = conn.pending_migrations(migrations()).unwrap();
        pending.first().map(|m| m.name().to_string())
    };
    while !next(conn).unwrap().contains(MIGRATION) {
        conn.run_next_migration(migrations()).unwrap();
    }
    seed(conn);
    conn.run_next_migration(migrations()).unwrap();
    let (leads, cached) = read(conn);
    assert_eq!(leads, owned(&LEADS_AFTER));
    assert_eq!(cached, vec!["123 N MAIN ST #4|78701".to_owned()]);

    conn.revert_last_migration(migrations()).unwrap();
    let (leads, _) = read(conn);
    assert_eq!(leads, owned(&LEADS_BEFORE));
}

/// SQLite, then PostgreSQL when `TEST_DATABASE_URL` names one (else said on stderr).
#[test]
fn box_keys_move_to_usps_order_and_back() {
    OwnFile::with_connection("box-keys", |conn| check(conn, || SQLITE_MIGRATIONS));
    let what = "PostgreSQL box key migration";
    OwnSchema::with_connection("box_keys", what, |conn, _| {
        check(conn, || POSTGRES_MIGRATIONS)
    });
}
