//! The parts of a lead query that need written-out SQL (docs/search.md): `q` through
//! PostgreSQL's trigram index, the ZIP filter through its folded index, and the list's order.
use diesel::dsl::sql;
use diesel::expression::BoxableExpression;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Double, Text};

use leadhub_domain::lead::nearby::Circle;
use leadhub_domain::lead::search::{LeadSort, SearchText, SortField};

use crate::schema::leads;
use crate::sql::escape_like;
use crate::DbConnection;

type Db = <DbConnection as diesel::Connection>::Backend;

/// A condition on one lead row.
pub(crate) type LeadCondition = Box<dyn BoxableExpression<leads::table, Db, SqlType = Bool>>;

/// Fewest characters a trigram index can look up; a shorter needle is matched by a scan.
const TRIGRAM: usize = 3;

/// `q` on PostgreSQL: the lead's search text (address, owner name, project number, phone
/// digits, e-mails) contains one of the needles, case-insensitively, through the pg_trgm index on
/// the stored column `search_doc` (`lead_search_doc(..)`, not in schema.rs: PostgreSQL's own),
/// kept in step with every write by the database itself (a generated column). SQLite answers `q`
/// from its word index (`word_search`).
pub(crate) fn matches_q(q: &SearchText) -> LeadCondition {
    let needles = q.needles();
    if needles.iter().any(|n| n.chars().count() < TRIGRAM) {
        return scanned(&needles);
    }
    any_of(
        needles
            .iter()
            .map(|needle| -> LeadCondition {
                // PostgreSQL's LIKE escapes with `\` by default; no ESCAPE clause, so the
                // pattern stays a plain parameter the trigram index can use.
                Box::new(
                    sql::<Bool>("leads.search_doc LIKE lower(")
                        .bind::<Text, _>(format!("%{}%", escape_like(needle)))
                        .sql(")"),
                )
            })
            .collect(),
    )
}

/// The conditions joined by OR (none: false).
pub(crate) fn any_of(conditions: Vec<LeadCondition>) -> LeadCondition {
    conditions
        .into_iter()
        .reduce(|a, b| Box::new(a.or(b)))
        .unwrap_or_else(|| Box::new(sql::<Bool>("1 = 0")))
}

/// Whether any of the columns holds a value (`has`), or none of them.
macro_rules! holds_any {
    ($has:expr, $($column:expr),+ $(,)?) => {{
        let any = any_of(vec![$(Box::new($column.is_not_null()) as LeadCondition),+]);
        if $has {
            any
        } else {
            Box::new(diesel::dsl::not(any))
        }
    }};
}

/// `has_phone`: whether any of the lead's five phone columns holds a number (an empty cell is
/// stored as none).
pub(crate) fn with_phone(has: bool) -> LeadCondition {
    holds_any!(
        has,
        leads::primary_phone,
        leads::phone_2,
        leads::phone_3,
        leads::phone_4,
        leads::phone_5,
    )
}

/// `has_email`: whether any of the lead's three e-mail columns holds an address.
pub(crate) fn with_email(has: bool) -> LeadCondition {
    holds_any!(has, leads::email_1, leads::email_2, leads::email_3)
}

/// A needle too short for a trigram index: the same columns, compared row by row.
fn scanned(needles: &[&str]) -> LeadCondition {
    const COLUMNS: [&str; 10] = [
        "leads.address",
        "leads.project_number",
        "leads.primary_phone",
        "leads.phone_2",
        "leads.phone_3",
        "leads.phone_4",
        "leads.phone_5",
        "leads.email_1",
        "leads.email_2",
        "leads.email_3",
    ];
    let owner = "COALESCE(leads.first_name, '') || ' ' || COALESCE(leads.last_name, '')";
    let mut conditions: Vec<LeadCondition> = Vec::new();
    for needle in needles {
        let pattern = format!("%{}%", escape_like(&needle.to_lowercase()));
        for column in COLUMNS.iter().copied().chain([owner]) {
            conditions.push(Box::new(
                sql::<Bool>(&format!("LOWER({column}) LIKE "))
                    .bind::<Text, _>(pattern.clone())
                    .sql(" ESCAPE '\\'"),
            ));
        }
    }
    any_of(conditions)
}

/// `zip_code`: a whole ZIP5 (or ZIP+4) through the index on the stored ZIP's first five
/// characters; any other prefix by a scan.
pub(crate) fn matches_zip(given: &str) -> LeadCondition {
    let given = given.trim();
    let digits = |s: &str| s.len() == 5 && s.chars().all(|c| c.is_ascii_digit());
    let zip5 = given.get(..5).filter(|z| digits(z));
    match zip5 {
        // Written out: the index is on `substr(zip_code, 1, 5)` and an expression with bound
        // numbers would not match it.
        Some(zip5) if given.len() == 5 => Box::new(
            sql::<Bool>("substr(leads.zip_code, 1, 5) = ").bind::<Text, _>(zip5.to_owned()),
        ),
        Some(zip5) => Box::new(
            sql::<Bool>("substr(leads.zip_code, 1, 5) = ")
                .bind::<Text, _>(zip5.to_owned())
                .sql(" AND leads.zip_code LIKE ")
                .bind::<Text, _>(format!("{}%", escape_like(given)))
                .sql(" ESCAPE '\\'"),
        ),
        None => Box::new(
            leads::zip_code
                .like(format!("{}%", escape_like(given)))
                .escape('\\')
                .assume_not_null(),
        ),
    }
}

/// `near`: the lead's coordinates are in the circle. The box around it is what the index on
/// the live leads' coordinates (`leads_live_position`) seeks; the sum is the square of
/// `Circle::miles_to` in degrees, so a lead listed is one the page shows within the radius.
pub(crate) fn within(circle: &Circle) -> LeadCondition {
    let b = circle.bounds();
    let radius = circle.degrees();
    let in_box: LeadCondition = Box::new(
        sql::<Bool>("leads.latitude BETWEEN ")
            .bind::<Double, _>(b.south)
            .sql(" AND ")
            .bind::<Double, _>(b.north)
            .sql(" AND leads.longitude BETWEEN ")
            .bind::<Double, _>(b.west)
            .sql(" AND ")
            .bind::<Double, _>(b.east),
    );
    Box::new(in_box.and(squared_degrees(circle).le(radius * radius)))
}

/// A number computed from a lead row.
type LeadNumber = Box<dyn BoxableExpression<leads::table, Db, SqlType = Double>>;

/// The squared distance from the circle's centre in degrees of latitude (`Circle::miles_to`).
fn squared_degrees(circle: &Circle) -> LeadNumber {
    let (lat, lon, scale) = (circle.latitude, circle.longitude, circle.longitude_scale());
    Box::new(
        sql::<Double>("((leads.latitude - ")
            .bind::<Double, _>(lat)
            .sql(") * (leads.latitude - ")
            .bind::<Double, _>(lat)
            .sql(") + (leads.longitude - ")
            .bind::<Double, _>(lon)
            .sql(") * (leads.longitude - ")
            .bind::<Double, _>(lon)
            .sql(") * ")
            .bind::<Double, _>(scale * scale)
            .sql(")"),
    )
}

/// The list query in `sort`'s order, ties by creation and id in the same direction. A lead
/// without the sorted value is the smallest on both backends (SQLite's own rule; PostgreSQL
/// is told so, and its indexes are built that way). `distance` orders by the distance from
/// `near`'s centre (newest first without one: the API refuses that pair).
pub(crate) fn in_order(
    query: leads::BoxedQuery<'static, Db>,
    sort: LeadSort,
    near: Option<Circle>,
) -> leads::BoxedQuery<'static, Db> {
    let nullable = |column: &str| {
        let direction = if sort.descending {
            "DESC NULLS LAST"
        } else {
            "ASC NULLS FIRST"
        };
        sql::<Text>(&format!("{column} {direction}"))
    };
    let query = match (sort.field, sort.descending) {
        (SortField::CreatedAt, false) => query.order(leads::created_at.asc()),
        (SortField::CreatedAt, true) => query.order(leads::created_at.desc()),
        (SortField::UpdatedAt, false) => query.order(leads::updated_at.asc()),
        (SortField::UpdatedAt, true) => query.order(leads::updated_at.desc()),
        (SortField::City, _) => query
            .order(nullable("lower(leads.city)"))
            .then_order_by(created_in(sort.descending)),
        (SortField::PermitDate, _) => query
            .order(nullable("leads.permit_date"))
            .then_order_by(created_in(sort.descending)),
        (SortField::FollowUpOn, _) => query
            .order(nullable("leads.follow_up_on"))
            .then_order_by(created_in(sort.descending)),
        (SortField::LastContactAt, _) => query
            .order(nullable("leads.last_contact_at"))
            .then_order_by(created_in(sort.descending)),
        (SortField::Distance, descending) => match near {
            // Every lead listed has coordinates (`within`): no nulls to place.
            Some(circle) if descending => query
                .order(squared_degrees(&circle).desc())
                .then_order_by(created_in(true)),
            Some(circle) => query
                .order(squared_degrees(&circle).asc())
                .then_order_by(created_in(false)),
            None => query.order(leads::created_at.desc()),
        },
    };
    if sort.descending {
        query.then_order_by(leads::id.desc())
    } else {
        query.then_order_by(leads::id.asc())
    }
}

/// Creation time as the tie-break of another field's order.
fn created_in(descending: bool) -> diesel::expression::SqlLiteral<Text> {
    sql::<Text>(if descending {
        "leads.created_at DESC"
    } else {
        "leads.created_at ASC"
    })
}
