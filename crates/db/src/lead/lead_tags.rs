//! A lead's tags: the JSON array on its row, which every read of the lead has, and one
//! `lead_tags` row a tag, which the `tag=` filter reads. Both are written here, together.
use diesel::prelude::*;

use crate::lead::lead_search::LeadCondition;
use crate::schema::{lead_tags, leads};
use crate::DbConnection;

/// The `leads.tags` value of these tags (sorted, each once, as the domain hands them over).
pub(crate) fn tags_column(tags: &[String]) -> String {
    serde_json::Value::from(tags).to_string()
}

/// The tags of a `leads.tags` value.
pub(crate) fn stored_tags(column: &str) -> QueryResult<Vec<String>> {
    serde_json::from_str(column).map_err(|e| {
        diesel::result::Error::DeserializationError(
            format!("leads.tags is not a JSON array of strings: {e}").into(),
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

/// The `tag=` filter: the leads carrying `tag` (stored form), found through `lead_tags`' key.
pub(crate) fn tagged(tag: &str) -> LeadCondition {
    Box::new(
        leads::id.eq_any(
            lead_tags::table
                .filter(lead_tags::tag.eq(tag.to_owned()))
                .select(lead_tags::lead_id),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_is_a_json_array() {
        assert_eq!(tags_column(&[]), "[]");
        assert_eq!(
            tags_column(&["hot".into(), "say \"hi\"".into()]),
            r#"["hot","say \"hi\""]"#
        );
    }
}
