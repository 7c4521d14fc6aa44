//! A lead's row rewritten without its indexes, when no indexed column changed.
//!
//! SQLite rewrites the entry of every index whose columns an UPDATE sets, changed or not: a
//! person's edit written as the whole row (`LeadValues`) rewrote all of the lead's index
//! entries, 50-60 KB of log for a new e-mail address, against 8 KB for a status change
//! (measured on a copy of the schema with 10,000 leads). An edit that leaves the indexed
//! columns alone is written with `unindexed_columns!` instead. PostgreSQL compares the values
//! itself (a heap-only update) and takes the same statement.

use crate::lead::lead_row::LeadValues;

impl LeadValues {
    /// Whether `self` and `other` agree on every column of theirs that an index of `leads`
    /// holds (the migrations' `CREATE INDEX ... ON leads`). A column missing here while
    /// indexed costs speed, not correctness: `unindexed_columns!` still writes it.
    pub(crate) fn same_indexed_columns(&self, other: &LeadValues) -> bool {
        self.team_id == other.team_id
            && self.dedupe_scope == other.dedupe_scope
            && self.street_key == other.street_key
            && self.address_key == other.address_key
            && self.city == other.city
            && self.state == other.state
            && self.zip_code == other.zip_code
            && self.county == other.county
            && self.permit_date == other.permit_date
            && self.permit_status == other.permit_status
            && self.work_type == other.work_type
            && self.property_type == other.property_type
            && self.source == other.source
            && self.enrichment_status == other.enrichment_status
            && self.created_at == other.created_at
            && self.updated_at == other.updated_at
    }
}

/// The changeset of every `LeadValues` column that `same_indexed_columns` does not compare,
/// from the `&LeadValues` `$v`: with those equal, it writes what the whole row would. A test
/// checks that the two lists together are every column of `LeadValues`.
macro_rules! unindexed_columns {
    ($v:expr) => {{
        use $crate::schema::leads as l;
        let v: &$crate::lead::lead_row::LeadValues = $v;
        (
            (
                l::address.eq(&v.address),
                l::first_name.eq(&v.first_name),
                l::last_name.eq(&v.last_name),
                l::primary_phone.eq(&v.primary_phone),
                l::primary_phone_type.eq(&v.primary_phone_type),
                l::phone_2.eq(&v.phone_2),
                l::phone_3.eq(&v.phone_3),
                l::phone_4.eq(&v.phone_4),
                l::phone_5.eq(&v.phone_5),
                l::email_1.eq(&v.email_1),
                l::email_2.eq(&v.email_2),
                l::email_3.eq(&v.email_3),
                l::mail_address.eq(&v.mail_address),
                l::mail_city.eq(&v.mail_city),
                l::mail_state.eq(&v.mail_state),
                l::mail_zip.eq(&v.mail_zip),
                l::project_number.eq(&v.project_number),
                l::parcel_number.eq(&v.parcel_number),
            ),
            (
                l::subdivision.eq(&v.subdivision),
                l::lot.eq(&v.lot),
                l::project_description.eq(&v.project_description),
                l::specific_use.eq(&v.specific_use),
                l::lot_size.eq(&v.lot_size),
                l::lot_size_acres.eq(v.lot_size_acres),
                l::bedrooms.eq(v.bedrooms),
                l::related_url.eq(&v.related_url),
                l::latitude.eq(v.latitude),
                l::longitude.eq(v.longitude),
                l::source_identifier.eq(&v.source_identifier),
                l::geocode_source.eq(&v.geocode_source),
                l::geocode_match.eq(&v.geocode_match),
                l::geocode_matched_address.eq(&v.geocode_matched_address),
                l::county_fips.eq(&v.county_fips),
                l::appraisal.eq(&v.appraisal),
                l::submission_count.eq(v.submission_count),
                l::created_by.eq(v.created_by),
            ),
        )
    }};
}
pub(crate) use unindexed_columns;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use diesel::prelude::*;
    use diesel::sqlite::Sqlite;

    use super::*;
    use crate::schema::leads;
    use crate::sql::kept::kept_update;

    /// The columns an UPDATE's SQL sets, by name.
    fn set_columns(sql: &str) -> BTreeSet<String> {
        let set = sql
            .split(" SET ")
            .nth(1)
            .unwrap()
            .split(" WHERE ")
            .next()
            .unwrap();
        set.split(", ")
            .map(|part| {
                part.split(" = ")
                    .next()
                    .unwrap()
                    .trim_matches('`')
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn the_unindexed_columns_and_the_compared_ones_are_every_column_of_the_row() {
        let v = LeadValues::default();
        let whole = kept_update(leads::table, leads::id.eq(1), &v);
        let whole = set_columns(&diesel::debug_query::<Sqlite, _>(&whole).to_string());
        let unindexed = kept_update(leads::table, leads::id.eq(1), unindexed_columns!(&v));
        let unindexed = set_columns(&diesel::debug_query::<Sqlite, _>(&unindexed).to_string());
        let compared: BTreeSet<String> = [
            "team_id",
            "dedupe_scope",
            "street_key",
            "address_key",
            "city",
            "state",
            "zip_code",
            "county",
            "permit_date",
            "permit_status",
            "work_type",
            "property_type",
            "source",
            "enrichment_status",
            "created_at",
            "updated_at",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(whole.len(), 52, "{whole:?}");
        assert!(unindexed.is_disjoint(&compared), "{unindexed:?}");
        let together: BTreeSet<String> = unindexed.union(&compared).cloned().collect();
        assert_eq!(together, whole);
    }

    #[test]
    fn a_change_of_any_compared_column_is_seen() {
        let v = LeadValues::default();
        assert!(v.same_indexed_columns(&v.clone()));
        let changes: [fn(&mut LeadValues); 16] = [
            |v| v.team_id = Some(1),
            |v| v.dedupe_scope = 7,
            |v| v.street_key = Some("1 ELM ST".into()),
            |v| v.address_key = Some("1 ELM ST|78701".into()),
            |v| v.city = Some("Austin".into()),
            |v| v.state = Some("TX".into()),
            |v| v.zip_code = Some("78701".into()),
            |v| v.county = Some("Travis".into()),
            |v| v.permit_date = Some("2026-01-02".into()),
            |v| v.permit_status = Some("issued".into()),
            |v| v.work_type = Some("roof".into()),
            |v| v.property_type = Some("residential".into()),
            |v| v.source = Some("referral".into()),
            |v| v.enrichment_status = "complete".into(),
            |v| v.created_at = chrono::NaiveDateTime::MIN,
            |v| v.updated_at = chrono::NaiveDateTime::MIN,
        ];
        for change in changes {
            let mut changed = v.clone();
            change(&mut changed);
            assert!(!v.same_indexed_columns(&changed), "{changed:?}");
        }
    }
}
