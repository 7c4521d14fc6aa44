//! A lead's tags: the JSON array on its row, which every read of the lead has, and one
//! `lead_tags` row a tag, which the `tag=` filter reads. Both are written here, together.
use diesel::dsl::{count_star, sql};
use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};

use leadhub_domain::lead::work::TagCount;

use crate::lead::lead_search::LeadCondition;
use crate::schema::{lead_tags, leads};
use crate::sql::narrow_to_teams;
use crate::{Backend, DbConnection, ReadConnection};

/// A column holding these strings as a JSON array (`leads.tags`: sorted, each once, as the
/// domain hands them over; `leads.wrong_phones`).
pub(crate) fn strings_column(strings: &[String]) -> String {
    serde_json::Value::from(strings).to_string()
}

/// The tags of a `leads.tags` value.
pub(crate) fn stored_tags(column: &str) -> QueryResult<Vec<String>> {
    stored_strings("leads.tags", column)
}

/// The strings of a column holding a JSON array of them (`leads.tags`, `leads.wrong_phones`).
pub(crate) fn stored_strings(name: &str, column: &str) -> QueryResult<Vec<String>> {
    serde_json::from_str(column).map_err(|e| {
        diesel::result::Error::DeserializationError(
            format!("{name} is not a JSON array of strings: {e}").into(),
        )
    })
}

/// Makes the lead's `lead_tags` rows go from `old` to `new` (in the transaction writing
/// `leads.tags`): only the tags that differ are written, so a bulk tag of 1,000 leads writes
/// 1,000 rows, not every tag of each.
pub(crate) fn index_tags(
    conn: &mut DbConnection,
    lead_id: i64,
    old: &[String],
    new: &[String],
) -> QueryResult<()> {
    let gone: Vec<&String> = old.iter().filter(|t| !new.contains(t)).collect();
    if !gone.is_empty() {
        diesel::delete(
            lead_tags::table
                .filter(lead_tags::lead_id.eq(lead_id))
                .filter(lead_tags::tag.eq_any(gone)),
        )
        .execute(conn)?;
    }
    // One row at a time: diesel's multi-backend connection has no multi-row INSERT.
    for tag in new.iter().filter(|t| !old.contains(t)) {
        diesel::insert_into(lead_tags::table)
            .values((lead_tags::tag.eq(tag), lead_tags::lead_id.eq(lead_id)))
            .execute(conn)?;
    }
    Ok(())
}

/// The `tag=` filter where no MATCH of SQLite's word index holds it (as for `not_tagged`): the
/// leads carrying `tag` (stored form), found through `lead_tags`' key.
pub(crate) fn tagged(tag: &str) -> LeadCondition {
    Box::new(
        leads::id.eq_any(
            lead_tags::table
                .filter(lead_tags::tag.eq(tag.to_owned()))
                .select(lead_tags::lead_id),
        ),
    )
}

/// The `without_tag=` filter where no MATCH of SQLite's word index holds it (there it is FTS5's
/// `NOT`, `word_search`): on PostgreSQL always, on SQLite beside conditions on the row alone.
/// The leads not carrying `tag` (stored form). PostgreSQL gets
/// `NOT EXISTS`, which it plans as an anti-join beside the other filters (a `NOT IN` it cannot,
/// as a NULL would change its answer, and it then read every visible lead even beside `tag=`:
/// 228 ms at p95 against 75 ms, `dashboard` bench); SQLite gets `NOT IN`, whose list it builds
/// once, where `NOT EXISTS` looked the key up for every lead (p95 991 ms against 353 ms).
/// diesel's `exists` takes no subquery naming the outer table, hence the SQL.
pub(crate) fn not_tagged(tag: &str, backend: Backend) -> LeadCondition {
    match backend {
        Backend::Postgres => Box::new(
            sql::<Bool>("NOT EXISTS (SELECT 1 FROM lead_tags WHERE lead_tags.tag = ")
                .bind::<Text, _>(tag.to_owned())
                .sql(" AND lead_tags.lead_id = leads.id)"),
        ),
        Backend::Sqlite => Box::new(diesel::dsl::not(
            leads::id.eq_any(
                lead_tags::table
                    .filter(lead_tags::tag.eq(tag.to_owned()))
                    .select(lead_tags::lead_id),
            ),
        )),
    }
}

/// How many live leads (not archived, not merged away) of `visible_teams` (None: every team; a
/// list: those teams and the unassigned leads), of `team_id` alone when given, carry each tag:
/// most first, then by tag, at most `limit` tags. One grouped read of `lead_tags` joined to
/// the leads (on SQLite each lead's visibility from `leads_live_team`, not its row); sorted
/// here, since a team's tags are a few hundred words at most.
pub(crate) fn tag_counts(
    conn: &mut ReadConnection<'_>,
    visible_teams: &Option<Vec<i64>>,
    team_id: Option<i64>,
    limit: i64,
) -> QueryResult<Vec<TagCount>> {
    let mut q = lead_tags::table
        .inner_join(leads::table)
        .filter(leads::merged_into_id.is_null())
        .filter(leads::archived_at.is_null())
        .group_by(lead_tags::tag)
        .select((lead_tags::tag, count_star()))
        .into_boxed();
    narrow_to_teams!(q, leads::team_id, visible_teams, team_id);
    let mut counts: Vec<(String, i64)> = conn.load(q)?;
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts.truncate(usize::try_from(limit).unwrap_or(0));
    Ok(counts
        .into_iter()
        .map(|(tag, leads)| TagCount { tag, leads })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_is_a_json_array() {
        assert_eq!(strings_column(&[]), "[]");
        assert_eq!(
            strings_column(&["hot".into(), "say \"hi\"".into()]),
            r#"["hot","say \"hi\""]"#
        );
    }
}
