//! `BusinessRepository`: duplicate-aware imports and business queries.
//!
//! An import runs in one transaction that first takes its scope's write lock (SQLite: a no-op
//! UPDATE makes the transaction a writer at once; PostgreSQL: an advisory lock per scope), so two
//! concurrent imports cannot both store one business. Duplicate candidates are looked up in bulk
//! (by name key, phone and domain, a few queries per 500 businesses), then compared with the
//! domain's rule (`DuplicateKeys::same_business`).
use std::collections::{BTreeMap, BTreeSet};

use async_trait::async_trait;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::{count_star, sql};
use diesel::expression::BoxableExpression;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Nullable, Text};

use leadhub_domain::business::{
    changes, Business, BusinessFilter, BusinessImport, BusinessPatch, BusinessRepository,
    BusinessStatistics, DuplicateKeys, ImportedBusiness, NewBusiness,
};
use leadhub_domain::lead::search::SearchText;
use leadhub_domain::store::StoreResult;

use crate::pool::connection::take_write_lock;
use crate::schema::businesses;
use crate::sql::escape_like;
use crate::sql::time::{from_db, to_db};
use crate::{scope_of, Database, DbConnection, IN_LIST_CHUNK};

diesel::define_sql_function!(fn lower(x: Nullable<Text>) -> Nullable<Text>);

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = businesses)]
struct BusinessRow {
    id: i64,
    team_id: Option<i64>,
    name: String,
    phone: Option<String>,
    website: Option<String>,
    address: Option<String>,
    city: Option<String>,
    state: Option<String>,
    zip_code: Option<String>,
    industry: Option<String>,
    rating: Option<f64>,
    review_count: Option<i32>,
    relationship_type: String,
    status: String,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

impl From<BusinessRow> for Business {
    fn from(r: BusinessRow) -> Self {
        Business {
            id: r.id,
            team_id: r.team_id,
            name: r.name,
            phone: r.phone,
            website: r.website,
            address: r.address,
            city: r.city,
            state: r.state,
            zip_code: r.zip_code,
            industry: r.industry,
            rating: r.rating,
            review_count: r.review_count.map(i64::from),
            relationship_type: r.relationship_type,
            status: r.status,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        }
    }
}

#[derive(Insertable)]
#[diesel(table_name = businesses)]
struct NewBusinessRow<'a> {
    team_id: Option<i64>,
    dedupe_scope: i64,
    name: &'a str,
    name_key: &'a str,
    phone: Option<&'a str>,
    website: Option<&'a str>,
    website_domain: Option<&'a str>,
    address: Option<&'a str>,
    city: Option<&'a str>,
    state: Option<&'a str>,
    zip_code: Option<&'a str>,
    industry: Option<&'a str>,
    rating: Option<f64>,
    review_count: Option<i32>,
    relationship_type: &'a str,
    status: &'a str,
    created_by: i64,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

fn lock_scope(conn: &mut DbConnection, scope: i64) -> QueryResult<()> {
    match conn {
        DbConnection::Sqlite(_) => {
            diesel::sql_query("UPDATE businesses SET id = id WHERE id = -1").execute(conn)?;
        }
        DbConnection::Postgres(_) => {
            diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind::<Text, _>(format!("businesses|{scope}"))
                .execute(conn)?;
        }
    }
    Ok(())
}

/// A stored business's id and the columns its duplicate keys are made of.
type KeyColumns = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// Stored businesses of `scope` sharing a name key, phone or domain with any of `new`.
fn candidates(
    conn: &mut DbConnection,
    scope: i64,
    new: &[NewBusiness],
) -> QueryResult<Vec<(i64, DuplicateKeys)>> {
    let keys: Vec<DuplicateKeys> = new.iter().map(NewBusiness::duplicate_keys).collect();
    let names: BTreeSet<&str> = keys.iter().map(|k| k.name_key.as_str()).collect();
    let phones: BTreeSet<&str> = keys.iter().filter_map(|k| k.phone.as_deref()).collect();
    let domains: BTreeSet<&str> = keys.iter().filter_map(|k| k.domain.as_deref()).collect();
    let mut found: BTreeMap<i64, DuplicateKeys> = BTreeMap::new();
    // Only the columns the keys are made of: id, name key, city, state, phone, website.
    let in_scope = || {
        businesses::table
            .filter(businesses::dedupe_scope.eq(scope))
            .select((
                businesses::id,
                businesses::name_key,
                businesses::city,
                businesses::state,
                businesses::phone,
                businesses::website,
            ))
            .into_boxed()
    };
    let mut collect = |rows: Vec<KeyColumns>| {
        for (id, name_key, city, state, phone, website) in rows {
            found.entry(id).or_insert_with(|| {
                DuplicateKeys::new(
                    &name_key,
                    city.as_deref(),
                    state.as_deref(),
                    phone.as_deref(),
                    website.as_deref(),
                )
            });
        }
    };
    for chunk in names.into_iter().collect::<Vec<_>>().chunks(IN_LIST_CHUNK) {
        collect(
            in_scope()
                .filter(businesses::name_key.eq_any(chunk))
                .load(conn)?,
        );
    }
    for chunk in phones.into_iter().collect::<Vec<_>>().chunks(IN_LIST_CHUNK) {
        collect(
            in_scope()
                .filter(businesses::phone.eq_any(chunk))
                .load(conn)?,
        );
    }
    for chunk in domains
        .into_iter()
        .collect::<Vec<_>>()
        .chunks(IN_LIST_CHUNK)
    {
        collect(
            in_scope()
                .filter(businesses::website_domain.eq_any(chunk))
                .load(conn)?,
        );
    }
    Ok(found.into_iter().collect())
}

fn import_all(
    conn: &mut DbConnection,
    import: &BusinessImport,
) -> QueryResult<Vec<ImportedBusiness>> {
    let scope = scope_of(import.team_id);
    lock_scope(conn, scope)?;
    let mut known = if import.skip_duplicates {
        candidates(conn, scope, &import.businesses)?
    } else {
        Vec::new()
    };
    let now = to_db(import.now);
    let mut results = Vec::with_capacity(import.businesses.len());
    for b in &import.businesses {
        let keys = b.duplicate_keys();
        if import.skip_duplicates {
            if let Some((id, _)) = known.iter().find(|(_, k)| keys.same_business(k)) {
                results.push(ImportedBusiness::Duplicate(*id));
                continue;
            }
        }
        let id = diesel::insert_into(businesses::table)
            .values(&NewBusinessRow {
                team_id: import.team_id,
                dedupe_scope: scope,
                name: &b.name,
                name_key: &b.name_key,
                phone: b.phone.as_deref(),
                website: b.website.as_deref(),
                website_domain: b.website_domain.as_deref(),
                address: b.address.as_deref(),
                city: b.city.as_deref(),
                state: b.state.as_deref(),
                zip_code: b.zip_code.as_deref(),
                industry: b.industry.as_deref(),
                rating: b.rating,
                review_count: b.review_count.map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
                relationship_type: import.relationship_type.as_str(),
                status: "prospect",
                created_by: import.user_id,
                created_at: now,
                updated_at: now,
            })
            .returning(businesses::id)
            .get_result::<i64>(conn)?;
        // Later elements of the import are compared with this one too.
        if import.skip_duplicates {
            known.push((id, keys));
        }
        results.push(ImportedBusiness::Created(id));
    }
    Ok(results)
}

/// Narrows a boxed business query (plain or grouped) by a filter; `visible_teams` Some limits to
/// unassigned businesses and those teams.
macro_rules! apply_filter {
    ($query:expr, $filter:expr) => {{
        let f: &BusinessFilter = $filter;
        let mut q = $query;
        crate::sql::narrow_to_teams!(q, businesses::team_id, &f.visible_teams, f.team_id);
        if let Some(r) = f.relationship_type {
            q = q.filter(businesses::relationship_type.eq(r.as_str()));
        }
        if let Some(s) = f.status {
            q = q.filter(businesses::status.eq(s.as_str()));
        }
        if let Some(v) = &f.industry {
            q = q.filter(lower(businesses::industry).eq(v.to_lowercase()));
        }
        if let Some(v) = &f.state {
            q = q.filter(businesses::state.eq(v.trim().to_ascii_uppercase()));
        }
        if let Some(v) = &f.q {
            q = q.filter(matches_q(v));
        }
        q
    }};
}

/// `q` on businesses: name, website or city contain a needle (any case), or the phone's digits
/// contain a phone-like needle's digits. A directory of thousands is scanned, not indexed.
fn matches_q(q: &SearchText) -> BusinessCondition {
    let pattern = |needle: &str| format!("%{}%", escape_like(&needle.to_lowercase()));
    let text = pattern(&q.text);
    let mut conditions: Vec<BusinessCondition> =
        ["businesses.name", "businesses.website", "businesses.city"]
            .iter()
            .map(|column| -> BusinessCondition {
                Box::new(
                    sql::<Bool>(&format!("LOWER({column}) LIKE "))
                        .bind::<Text, _>(text.clone())
                        .sql(" ESCAPE '\\'"),
                )
            })
            .collect();
    let digits = q.phone_digits.as_deref().unwrap_or(&q.text);
    conditions.push(Box::new(
        sql::<Bool>(
            "replace(replace(replace(replace(replace(replace(businesses.phone, '+', ''), '-', ''), \
             ' ', ''), '(', ''), ')', ''), '.', '') LIKE ",
        )
        .bind::<Text, _>(pattern(digits))
        .sql(" ESCAPE '\\'"),
    ));
    conditions
        .into_iter()
        .reduce(|a, b| Box::new(a.or(b)))
        .unwrap_or_else(|| Box::new(sql::<Bool>("1 = 0")))
}

type BusinessCondition = Box<dyn BoxableExpression<businesses::table, Db, SqlType = Bool>>;

type Db = <DbConnection as diesel::Connection>::Backend;

fn filtered(
    f: &BusinessFilter,
) -> businesses::BoxedQuery<'static, <DbConnection as diesel::Connection>::Backend> {
    apply_filter!(businesses::table.into_boxed(), f)
}

/// (value, count) per value of one column, NULL counted as "unknown".
macro_rules! counts_by {
    ($conn:expr, $filter:expr, $column:expr) => {
        $conn
            .load::<_, (Option<String>, i64)>(apply_filter!(
                businesses::table
                    .group_by($column)
                    .select(($column.nullable(), count_star()))
                    .into_boxed(),
                $filter
            ))
            .map(collect)
    };
}

#[async_trait]
impl BusinessRepository for Database {
    async fn import_businesses(
        &self,
        import: BusinessImport,
    ) -> StoreResult<Vec<ImportedBusiness>> {
        self.write(move |conn| conn.transaction(|conn| import_all(conn, &import)))
            .await
    }

    async fn find_business(&self, id: i64) -> StoreResult<Option<Business>> {
        let query = businesses::table.find(id);
        self.find_first::<BusinessRow, _, _>(query.select(BusinessRow::as_select()))
            .await
    }

    async fn list_businesses(
        &self,
        filter: BusinessFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<Business>, i64)> {
        self.read(move |conn| {
            let total: i64 = conn.get_result(filtered(&filter).count())?;
            let rows: Vec<BusinessRow> = conn.load(
                filtered(&filter)
                    .order((businesses::created_at.desc(), businesses::id.desc()))
                    .limit(limit)
                    .offset(offset)
                    .select(BusinessRow::as_select()),
            )?;
            Ok((rows.into_iter().map(Business::from).collect(), total))
        })
        .await
    }

    async fn update_business(
        &self,
        id: i64,
        patch: BusinessPatch,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Business>> {
        self.write(move |conn| {
            conn.transaction(|conn| {
                take_write_lock(conn)?;
                let Some(stored) = businesses::table
                    .find(id)
                    .select(BusinessRow::as_select())
                    .first(conn)
                    .optional()?
                    .map(Business::from)
                else {
                    return Ok(None);
                };
                // The request rules refused what an element rule would: None cannot happen.
                let Some(patched) = patch.applied_to(&stored) else {
                    return Ok(Some(stored));
                };
                if !changes(&stored, &patched) {
                    return Ok(Some(stored));
                }
                let f = &patched.fields;
                diesel::update(businesses::table.find(id))
                    .set((
                        (
                            businesses::name.eq(&f.name),
                            businesses::name_key.eq(&f.name_key),
                            businesses::phone.eq(&f.phone),
                            businesses::website.eq(&f.website),
                            businesses::website_domain.eq(&f.website_domain),
                            businesses::address.eq(&f.address),
                            businesses::city.eq(&f.city),
                            businesses::state.eq(&f.state),
                        ),
                        (
                            businesses::zip_code.eq(&f.zip_code),
                            businesses::industry.eq(&f.industry),
                            businesses::rating.eq(f.rating),
                            businesses::review_count
                                .eq(f.review_count.map(|n| i32::try_from(n).unwrap_or(i32::MAX))),
                            businesses::status.eq(&patched.status),
                            businesses::relationship_type.eq(&patched.relationship_type),
                            businesses::updated_at.eq(to_db(now)),
                        ),
                    ))
                    .execute(conn)?;
                businesses::table
                    .find(id)
                    .select(BusinessRow::as_select())
                    .first(conn)
                    .optional()
                    .map(|r| r.map(Business::from))
            })
        })
        .await
    }

    async fn business_statistics(&self, filter: BusinessFilter) -> StoreResult<BusinessStatistics> {
        self.read(move |conn| {
            let total: i64 = conn.get_result(filtered(&filter).count())?;
            let by_relationship_type = counts_by!(conn, &filter, businesses::relationship_type)?;
            let by_industry = counts_by!(conn, &filter, businesses::industry)?;
            let by_state = counts_by!(conn, &filter, businesses::state)?;
            let by_status = counts_by!(conn, &filter, businesses::status)?;
            Ok(BusinessStatistics {
                total,
                by_relationship_type,
                by_industry,
                by_state,
                by_status,
            })
        })
        .await
    }
}

fn collect(pairs: Vec<(Option<String>, i64)>) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for (value, n) in pairs {
        *out.entry(value.unwrap_or_else(|| "unknown".to_owned()))
            .or_insert(0) += n;
    }
    out
}
