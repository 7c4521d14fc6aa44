//! Lead rows and their conversion to and from the domain's lead.
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;

use leadhub_domain::lead::plan::NewLead;
use leadhub_domain::lead::record::{GeocodeInfo, Lead};
use leadhub_domain::lead::work::LeadWork;
use leadhub_domain::lead::{BarredNumbers, LeadFields};

use crate::lead::lead_tags::{stored_strings, stored_tags};
use crate::schema::leads;
use crate::scope_of;
use crate::sql::error::stored_word;
use crate::sql::time::from_db;

/// A stored lead: its id and its values.
#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = leads)]
pub struct LeadRow {
    pub id: i64,
    #[diesel(embed)]
    pub values: LeadValues,
    #[diesel(embed)]
    pub work: LeadWorkRow,
}

/// A lead's working state: written by `lead::lead_work`, never by intake's row writes (an
/// intake merge leaves status, owner and archive as they are).
#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = leads)]
pub struct LeadWorkRow {
    pub status: String,
    pub assignee_id: Option<i64>,
    pub version: i64,
    pub archived_at: Option<NaiveDateTime>,
    pub merged_into_id: Option<i64>,
    pub follow_up_on: Option<NaiveDate>,
    pub do_not_call: bool,
    /// A JSON array of strings (`strings_column`).
    pub tags: String,
    /// A JSON array of strings (`strings_column`), oldest first.
    pub wrong_phones: String,
    /// A JSON array of strings (`strings_column`), oldest first.
    pub do_not_call_phones: String,
}

impl LeadWorkRow {
    fn into_work(self) -> QueryResult<LeadWork> {
        Ok(LeadWork {
            status: stored_word("leads.status", &self.status)?,
            assignee_id: self.assignee_id,
            assignee: None,
            version: self.version,
            archived_at: self.archived_at.map(from_db),
            merged_into_id: self.merged_into_id,
            follow_up_on: self.follow_up_on,
            do_not_call: self.do_not_call,
            tags: stored_tags(&self.tags)?,
            barred: self.barred()?,
        })
    }

    /// The lead's barred numbers (`leads.wrong_phones`, `leads.do_not_call_phones`).
    pub fn barred(&self) -> QueryResult<BarredNumbers> {
        Ok(BarredNumbers {
            wrong: stored_strings("leads.wrong_phones", &self.wrong_phones)?,
            not_to_call: stored_strings("leads.do_not_call_phones", &self.do_not_call_phones)?,
        })
    }
}

impl LeadRow {
    /// The domain's lead; a stored `enrichment_status` this code does not know is an error.
    pub fn into_lead(self) -> QueryResult<Lead> {
        let mut v = self.values;
        let fields = v.take_fields();
        let geocode = v.geocode_source.take().map(|source| GeocodeInfo {
            source,
            match_type: v.geocode_match.take().unwrap_or_default(),
            matched_address: v.geocode_matched_address.take(),
        });
        let work = self.work.into_work()?;
        Ok(Lead {
            work,
            id: self.id,
            team_id: v.team_id,
            fields,
            address_standardized: v.street_key,
            lot_size_acres: v.lot_size_acres,
            geocode,
            county_fips: v.county_fips,
            appraisal: v.appraisal.and_then(|a| serde_json::from_str(&a).ok()),
            enrichment_status: stored_word("leads.enrichment_status", &v.enrichment_status)?,
            submission_count: v.submission_count,
            created_at: from_db(v.created_at),
            updated_at: from_db(v.updated_at),
        })
    }
}

impl LeadValues {
    /// A new lead's row, as `domain::lead::plan` made it, created at `now`.
    pub fn new_lead(lead: NewLead, now: NaiveDateTime) -> LeadValues {
        let mut values = LeadValues {
            team_id: lead.team_id,
            dedupe_scope: scope_of(lead.team_id),
            street_key: lead.street_key,
            address_key: lead.address_key,
            lot_size_acres: lead.lot_size_acres,
            enrichment_status: lead.enrichment_status.as_str().to_owned(),
            submission_count: lead.submission_count,
            created_by: lead.created_by,
            created_at: now,
            updated_at: now,
            ..LeadValues::default()
        };
        values.set_fields(lead.fields);
        values
    }
}

/// The row's columns, declared with the domain's one list of string fields: a text field added
/// there is a column here (and in `schema.rs`), and both directions of the mapping follow.
macro_rules! field_columns {
    ($($name:ident),*) => {
        /// A lead as written: every column but the id. `None` writes NULL (never the column's
        /// DEFAULT), so a stored row always equals the domain's view of it, and many rows fit
        /// one INSERT.
        #[derive(Queryable, Selectable, Insertable, AsChangeset, Clone, Debug, Default)]
        #[diesel(
            table_name = leads,
            treat_none_as_null = true,
            treat_none_as_default_value = false
        )]
        pub struct LeadValues {
            pub team_id: Option<i64>,
            pub dedupe_scope: i64,
            pub street_key: Option<String>,
            pub address_key: Option<String>,
            // The domain's string fields, one text column each.
            $(pub $name: Option<String>,)*
            pub lot_size_acres: Option<f64>,
            pub bedrooms: Option<i32>,
            pub latitude: Option<f64>,
            pub longitude: Option<f64>,
            pub geocode_source: Option<String>,
            pub geocode_match: Option<String>,
            pub geocode_matched_address: Option<String>,
            pub county_fips: Option<String>,
            pub appraisal: Option<String>,
            pub enrichment_status: String,
            pub submission_count: i32,
            pub created_by: i64,
            pub created_at: NaiveDateTime,
            pub updated_at: NaiveDateTime,
        }

        impl LeadValues {
            /// The domain's fields, from the row's columns.
            pub fn fields(&self) -> LeadFields {
                LeadFields {
                    $($name: self.$name.clone(),)*
                    bedrooms: self.bedrooms.map(i64::from),
                    latitude: self.latitude,
                    longitude: self.longitude,
                }
            }

            /// The domain's fields, moved out of the row's columns (which are left empty): a
            /// list or an export converts every row it reads, so no value is copied.
            pub fn take_fields(&mut self) -> LeadFields {
                LeadFields {
                    $($name: self.$name.take(),)*
                    bedrooms: self.bedrooms.take().map(i64::from),
                    latitude: self.latitude.take(),
                    longitude: self.longitude.take(),
                }
            }

            /// Moves the domain's fields into the row's columns.
            pub fn set_fields(&mut self, f: LeadFields) {
                $(self.$name = f.$name;)*
                self.bedrooms = f.bedrooms.and_then(|b| i32::try_from(b).ok());
                self.latitude = f.latitude;
                self.longitude = f.longitude;
            }
        }
    };
}

leadhub_domain::with_string_fields!(field_columns);
