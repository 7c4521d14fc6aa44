//! The lead list's filters are answered from indexes, not by reading every lead (issue 27,
//! docs/search.md): the query plans of the SQL the list sends, on both backends. PostgreSQL
//! plans an empty table with sequential scans, so they are turned off there: a plan that still
//! has one has no index to use. Needs `TEST_DATABASE_URL` for PostgreSQL (CI sets it).
#![allow(clippy::unwrap_used)]
mod common;
use common::{OwnFile, OwnSchema};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use leadhub_db::{Database, DbConnection};

/// (what, WHERE clause as the list writes it, ORDER BY) for the count and the page.
const QUERIES: &[(&str, &str, &str)] = &[
    ("city, any case", "lower(leads.city) = lower('austin')", "leads.created_at DESC, leads.id DESC"),
    ("county", "lower(leads.county) = lower('travis')", "leads.created_at DESC, leads.id DESC"),
    ("work type", "lower(leads.work_type) = lower('re-roof')", "leads.created_at DESC, leads.id DESC"),
    ("state + source", "leads.state = 'TX' AND leads.source = 'permit_scrape'", "leads.created_at DESC, leads.id DESC"),
    ("source + permit status", "leads.source = 'referral' AND lower(leads.permit_status) = lower('Issued')", "leads.created_at DESC, leads.id DESC"),
    ("zip + permit status", "substr(leads.zip_code, 1, 5) = '78701' AND lower(leads.permit_status) = lower('issued')", "leads.created_at DESC, leads.id DESC"),
    ("city + status, team member", "(leads.team_id IS NULL OR leads.team_id IN (1, 2)) AND lower(leads.city) = lower('Austin') AND lower(leads.permit_status) = lower('final')", "leads.created_at DESC, leads.id DESC"),
    ("property type", "leads.property_type = 'commercial'", "leads.created_at DESC, leads.id DESC"),
    ("sort by city", "1 = 1", "lower(leads.city) ASC NULLS FIRST, leads.created_at ASC, leads.id ASC"),
    ("sort by city, descending", "1 = 1", "lower(leads.city) DESC NULLS LAST, leads.created_at DESC, leads.id DESC"),
    ("sort by permit date", "1 = 1", "leads.permit_date DESC NULLS LAST, leads.created_at DESC, leads.id DESC"),
    ("sort by update", "1 = 1", "leads.updated_at DESC, leads.id DESC"),
];

#[derive(QueryableByName)]
struct SqlitePlan {
    #[diesel(sql_type = Text)]
    detail: String,
}

#[derive(QueryableByName)]
struct PgPlan {
    #[diesel(sql_type = Text)]
    #[diesel(column_name = "QUERY PLAN")]
    line: String,
}

fn sqlite_plan(conn: &mut SqliteConnection, sql: &str) -> String {
    let rows: Vec<SqlitePlan> = diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}"))
        .load(conn)
        .unwrap();
    rows.into_iter()
        .map(|r| r.detail)
        .collect::<Vec<_>>()
        .join(" | ")
}

fn pg_plan(conn: &mut PgConnection, sql: &str) -> String {
    let rows: Vec<PgPlan> = diesel::sql_query(format!("EXPLAIN {sql}"))
        .load(conn)
        .unwrap();
    rows.into_iter()
        .map(|r| r.line.trim().to_owned())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `upload=7` for a member of teams 1 and 2, as `leads::of_upload` writes it.
const OF_UPLOAD: &str = "leads.id IN (SELECT submissions.result_lead_id FROM submissions \
    WHERE submissions.batch_id IN (SELECT batches.id FROM batches WHERE batches.upload_id = 7 \
    AND batches.upload_id IN (SELECT uploads.id FROM uploads WHERE uploads.id = 7 \
    AND uploads.team_id IN (1, 2))) AND submissions.result_action IN ('created', 'updated'))";

/// The count and the first page of each query, and `q`'s lookups.
fn statements() -> Vec<(String, String)> {
    let mut out = vec![
        (
            "upload: count".to_owned(),
            format!("SELECT count(*) FROM leads WHERE {OF_UPLOAD}"),
        ),
        // The upload's leads are sorted (an upload holds at most a file's rows), but found
        // through its batches, never by reading every lead or submission.
        (
            "upload: page".to_owned(),
            format!(
                "SELECT leads.id FROM leads WHERE {OF_UPLOAD} \
                 ORDER BY leads.created_at DESC, leads.id DESC LIMIT 50"
            ),
        ),
    ];
    for (what, condition, order) in QUERIES {
        // Counting every lead reads an index whole, whatever is indexed.
        if *condition != "1 = 1" {
            out.push((
                format!("{what}: count"),
                format!("SELECT count(*) FROM leads WHERE {condition}"),
            ));
        }
        out.push((
            format!("{what}: page"),
            format!("SELECT leads.id FROM leads WHERE {condition} ORDER BY {order} LIMIT 50"),
        ));
    }
    out
}

#[test]
fn sqlite_filters_use_indexes() {
    let file = OwnFile::create("plans");
    let db = Database::connect(&file.url(), 1).unwrap();
    db.migrate().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let plans = runtime
        .block_on(db.write(|conn| match conn {
            DbConnection::Sqlite(c) => {
                let mut plans: Vec<(String, String)> = statements()
                    .into_iter()
                    .map(|(what, sql)| (what, sqlite_plan(c, &sql)))
                    .collect();
                let q = "SELECT count(*) FROM leads WHERE leads.id IN \
                     (SELECT rowid FROM lead_search WHERE lead_search MATCH '\"lamar\" OR \"5125550100\"')";
                plans.push(("q".into(), sqlite_plan(c, q)));
                Ok(plans)
            }
            DbConnection::Postgres(_) => unreachable!(),
        }))
        .unwrap();
    drop(db);
    file.remove();
    for (what, plan) in &plans {
        println!("{what}: {plan}");
        // An unfiltered sorted page walks its sort's index and stops after 50 rows.
        let walks_in_order = what.starts_with("sort") && plan.starts_with("SCAN leads USING");
        assert!(
            !plan.contains("SCAN leads") || walks_in_order,
            "{what} reads every lead: {plan}"
        );
        assert!(
            plan.contains("USING") || plan.contains("VIRTUAL TABLE INDEX"),
            "{what}: {plan}"
        );
        if what.starts_with("upload") {
            assert!(plan.contains("batches_upload"), "{what}: {plan}");
            assert!(plan.contains("submissions_batch"), "{what}: {plan}");
            assert!(!plan.contains("SCAN submissions"), "{what}: {plan}");
            continue;
        }
        assert!(
            !plan.contains("TEMP B-TREE FOR ORDER BY"),
            "{what} sorts every match: {plan}"
        );
    }
    let q = &plans.last().unwrap().1;
    assert!(q.contains("SCAN lead_search VIRTUAL TABLE INDEX"), "{q}");
    assert!(q.contains("USING INTEGER PRIMARY KEY"), "{q}");
}

#[test]
fn postgres_filters_use_indexes() {
    let Ok(pg_url) = std::env::var("TEST_DATABASE_URL") else {
        eprintln!("\n*** PostgreSQL plans SKIPPED: TEST_DATABASE_URL is not set ***\n");
        return;
    };
    let schema = OwnSchema::create(&pg_url, "plans");
    let db = Database::connect(&schema.url, 1).unwrap();
    db.migrate().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let plans = runtime
        .block_on(db.write(|conn| match conn {
            DbConnection::Postgres(c) => {
                c.batch_execute("SET enable_seqscan = off").unwrap();
                let mut plans: Vec<(String, String)> = statements()
                    .into_iter()
                    .map(|(what, sql)| (what, pg_plan(c, &sql)))
                    .collect();
                let doc = "lead_search_doc(leads.address, leads.first_name, leads.last_name, \
                    leads.project_number, leads.primary_phone, leads.phone_2, leads.phone_3, \
                    leads.phone_4, leads.phone_5, leads.email_1, leads.email_2, leads.email_3)";
                let q = format!(
                    "SELECT count(*) FROM leads WHERE ({doc} LIKE lower('%lamar%') OR {doc} LIKE lower('%5125550100%'))"
                );
                plans.push(("q".into(), pg_plan(c, &q)));
                Ok(plans)
            }
            DbConnection::Sqlite(_) => unreachable!(),
        }))
        .unwrap();
    drop(db);
    schema.remove();
    for (what, plan) in &plans {
        println!("{what}: {plan}");
        assert!(
            !plan.contains("Seq Scan"),
            "{what} reads every lead: {plan}"
        );
        assert!(plan.contains("Index"), "{what}: {plan}");
        if what.starts_with("upload") {
            assert!(plan.contains("batches_upload"), "{what}: {plan}");
        }
    }
    assert!(
        plans.last().unwrap().1.contains("lead_search_trgm"),
        "{:?}",
        plans.last()
    );
}
