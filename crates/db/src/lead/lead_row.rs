//! Lead rows and their conversion to and from the domain's lead.
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::lead::plan::NewLead;
use leadhub_domain::lead::record::{GeocodeInfo, Lead};
use leadhub_domain::lead::work::LeadWork;
use leadhub_domain::lead::LeadFields;

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
        })
    }
}

/// A lead as written: every column but the id. `None` writes NULL (never the column's DEFAULT),
/// so a stored row always equals the domain's view of it, and many rows fit one INSERT.
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
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub county: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub primary_phone: Option<String>,
    pub primary_phone_type: Option<String>,
    pub phone_2: Option<String>,
    pub phone_3: Option<String>,
    pub phone_4: Option<String>,
    pub phone_5: Option<String>,
    pub email_1: Option<String>,
    pub email_2: Option<String>,
    pub email_3: Option<String>,
    pub mail_address: Option<String>,
    pub mail_city: Option<String>,
    pub mail_state: Option<String>,
    pub mail_zip: Option<String>,
    pub project_number: Option<String>,
    pub permit_date: Option<String>,
    pub permit_status: Option<String>,
    pub parcel_number: Option<String>,
    pub subdivision: Option<String>,
    pub lot: Option<String>,
    pub work_type: Option<String>,
    pub project_description: Option<String>,
    pub specific_use: Option<String>,
    pub property_type: Option<String>,
    pub lot_size: Option<String>,
    pub lot_size_acres: Option<f64>,
    pub bedrooms: Option<i32>,
    pub related_url: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub source: Option<String>,
    pub source_identifier: Option<String>,
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

impl LeadRow {
    /// The domain's lead; a stored `enrichment_status` this code does not know is an error.
    pub fn into_lead(self) -> QueryResult<Lead> {
        let fields = self.values.fields();
        let geocode = self
            .values
            .geocode_source
            .clone()
            .map(|source| GeocodeInfo {
                source,
                match_type: self.values.geocode_match.clone().unwrap_or_default(),
                matched_address: self.values.geocode_matched_address.clone(),
            });
        let v = self.values;
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

    /// The domain's fields, from the row's columns.
    pub fn fields(&self) -> LeadFields {
        let r = self;
        LeadFields {
            address: r.address.clone(),
            city: r.city.clone(),
            state: r.state.clone(),
            zip_code: r.zip_code.clone(),
            county: r.county.clone(),
            first_name: r.first_name.clone(),
            last_name: r.last_name.clone(),
            primary_phone: r.primary_phone.clone(),
            primary_phone_type: r.primary_phone_type.clone(),
            phone_2: r.phone_2.clone(),
            phone_3: r.phone_3.clone(),
            phone_4: r.phone_4.clone(),
            phone_5: r.phone_5.clone(),
            email_1: r.email_1.clone(),
            email_2: r.email_2.clone(),
            email_3: r.email_3.clone(),
            mail_address: r.mail_address.clone(),
            mail_city: r.mail_city.clone(),
            mail_state: r.mail_state.clone(),
            mail_zip: r.mail_zip.clone(),
            project_number: r.project_number.clone(),
            permit_date: r.permit_date.clone(),
            permit_status: r.permit_status.clone(),
            parcel_number: r.parcel_number.clone(),
            subdivision: r.subdivision.clone(),
            lot: r.lot.clone(),
            work_type: r.work_type.clone(),
            project_description: r.project_description.clone(),
            specific_use: r.specific_use.clone(),
            property_type: r.property_type.clone(),
            lot_size: r.lot_size.clone(),
            related_url: r.related_url.clone(),
            source: r.source.clone(),
            source_identifier: r.source_identifier.clone(),
            bedrooms: r.bedrooms.map(i64::from),
            latitude: r.latitude,
            longitude: r.longitude,
        }
    }

    /// Moves the domain's fields into the row's columns.
    pub fn set_fields(&mut self, f: LeadFields) {
        self.address = f.address;
        self.city = f.city;
        self.state = f.state;
        self.zip_code = f.zip_code;
        self.county = f.county;
        self.first_name = f.first_name;
        self.last_name = f.last_name;
        self.primary_phone = f.primary_phone;
        self.primary_phone_type = f.primary_phone_type;
        self.phone_2 = f.phone_2;
        self.phone_3 = f.phone_3;
        self.phone_4 = f.phone_4;
        self.phone_5 = f.phone_5;
        self.email_1 = f.email_1;
        self.email_2 = f.email_2;
        self.email_3 = f.email_3;
        self.mail_address = f.mail_address;
        self.mail_city = f.mail_city;
        self.mail_state = f.mail_state;
        self.mail_zip = f.mail_zip;
        self.project_number = f.project_number;
        self.permit_date = f.permit_date;
        self.permit_status = f.permit_status;
        self.parcel_number = f.parcel_number;
        self.subdivision = f.subdivision;
        self.lot = f.lot;
        self.work_type = f.work_type;
        self.project_description = f.project_description;
        self.specific_use = f.specific_use;
        self.property_type = f.property_type;
        self.lot_size = f.lot_size;
        self.related_url = f.related_url;
        self.source = f.source;
        self.source_identifier = f.source_identifier;
        self.bedrooms = f.bedrooms.and_then(|b| i32::try_from(b).ok());
        self.latitude = f.latitude;
        self.longitude = f.longitude;
    }
}
