//! Lead rows and their conversion to and from the domain's lead.
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::lead::record::{EnrichmentStatus, GeocodeInfo, Lead};
use leadhub_domain::lead::LeadFields;

use crate::schema::leads;
use crate::time::from_db;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = leads)]
pub struct LeadRow {
    pub id: i64,
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

/// A lead as written: every column but the id. `None` writes NULL, so a stored row always
/// equals the domain's view of it.
#[derive(Insertable, AsChangeset, Clone, Debug)]
#[diesel(table_name = leads, treat_none_as_null = true)]
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
    pub fn from_values(id: i64, v: LeadValues) -> LeadRow {
        LeadRow {
            id,
            team_id: v.team_id,
            dedupe_scope: v.dedupe_scope,
            street_key: v.street_key,
            address_key: v.address_key,
            address: v.address,
            city: v.city,
            state: v.state,
            zip_code: v.zip_code,
            county: v.county,
            first_name: v.first_name,
            last_name: v.last_name,
            primary_phone: v.primary_phone,
            primary_phone_type: v.primary_phone_type,
            phone_2: v.phone_2,
            phone_3: v.phone_3,
            phone_4: v.phone_4,
            phone_5: v.phone_5,
            email_1: v.email_1,
            email_2: v.email_2,
            email_3: v.email_3,
            mail_address: v.mail_address,
            mail_city: v.mail_city,
            mail_state: v.mail_state,
            mail_zip: v.mail_zip,
            project_number: v.project_number,
            permit_date: v.permit_date,
            permit_status: v.permit_status,
            parcel_number: v.parcel_number,
            subdivision: v.subdivision,
            lot: v.lot,
            work_type: v.work_type,
            project_description: v.project_description,
            specific_use: v.specific_use,
            property_type: v.property_type,
            lot_size: v.lot_size,
            lot_size_acres: v.lot_size_acres,
            bedrooms: v.bedrooms,
            related_url: v.related_url,
            latitude: v.latitude,
            longitude: v.longitude,
            source: v.source,
            source_identifier: v.source_identifier,
            geocode_source: v.geocode_source,
            geocode_match: v.geocode_match,
            geocode_matched_address: v.geocode_matched_address,
            county_fips: v.county_fips,
            appraisal: v.appraisal,
            enrichment_status: v.enrichment_status,
            submission_count: v.submission_count,
            created_by: v.created_by,
            created_at: v.created_at,
            updated_at: v.updated_at,
        }
    }

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

    pub fn into_lead(self) -> Lead {
        let fields = self.fields();
        let geocode = self.geocode_source.clone().map(|source| GeocodeInfo {
            source,
            match_type: self.geocode_match.clone().unwrap_or_default(),
            matched_address: self.geocode_matched_address.clone(),
        });
        Lead {
            id: self.id,
            team_id: self.team_id,
            fields,
            lot_size_acres: self.lot_size_acres,
            geocode,
            county_fips: self.county_fips,
            appraisal: self.appraisal.and_then(|a| serde_json::from_str(&a).ok()),
            enrichment_status: EnrichmentStatus::parse(&self.enrichment_status),
            submission_count: self.submission_count,
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        }
    }

    /// The row's writable values, to be changed and written back.
    pub fn values(&self) -> LeadValues {
        let r = self.clone();
        LeadValues {
            team_id: r.team_id,
            dedupe_scope: r.dedupe_scope,
            street_key: r.street_key,
            address_key: r.address_key,
            address: r.address,
            city: r.city,
            state: r.state,
            zip_code: r.zip_code,
            county: r.county,
            first_name: r.first_name,
            last_name: r.last_name,
            primary_phone: r.primary_phone,
            primary_phone_type: r.primary_phone_type,
            phone_2: r.phone_2,
            phone_3: r.phone_3,
            phone_4: r.phone_4,
            phone_5: r.phone_5,
            email_1: r.email_1,
            email_2: r.email_2,
            email_3: r.email_3,
            mail_address: r.mail_address,
            mail_city: r.mail_city,
            mail_state: r.mail_state,
            mail_zip: r.mail_zip,
            project_number: r.project_number,
            permit_date: r.permit_date,
            permit_status: r.permit_status,
            parcel_number: r.parcel_number,
            subdivision: r.subdivision,
            lot: r.lot,
            work_type: r.work_type,
            project_description: r.project_description,
            specific_use: r.specific_use,
            property_type: r.property_type,
            lot_size: r.lot_size,
            lot_size_acres: r.lot_size_acres,
            bedrooms: r.bedrooms,
            related_url: r.related_url,
            latitude: r.latitude,
            longitude: r.longitude,
            source: r.source,
            source_identifier: r.source_identifier,
            geocode_source: r.geocode_source,
            geocode_match: r.geocode_match,
            geocode_matched_address: r.geocode_matched_address,
            county_fips: r.county_fips,
            appraisal: r.appraisal,
            enrichment_status: r.enrichment_status,
            submission_count: r.submission_count,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

impl LeadValues {
    /// All columns empty; constructors fill what they know.
    pub fn empty() -> LeadValues {
        LeadValues {
            team_id: None,
            dedupe_scope: 0,
            street_key: None,
            address_key: None,
            address: None,
            city: None,
            state: None,
            zip_code: None,
            county: None,
            first_name: None,
            last_name: None,
            primary_phone: None,
            primary_phone_type: None,
            phone_2: None,
            phone_3: None,
            phone_4: None,
            phone_5: None,
            email_1: None,
            email_2: None,
            email_3: None,
            mail_address: None,
            mail_city: None,
            mail_state: None,
            mail_zip: None,
            project_number: None,
            permit_date: None,
            permit_status: None,
            parcel_number: None,
            subdivision: None,
            lot: None,
            work_type: None,
            project_description: None,
            specific_use: None,
            property_type: None,
            lot_size: None,
            lot_size_acres: None,
            bedrooms: None,
            related_url: None,
            latitude: None,
            longitude: None,
            source: None,
            source_identifier: None,
            geocode_source: None,
            geocode_match: None,
            geocode_matched_address: None,
            county_fips: None,
            appraisal: None,
            enrichment_status: String::new(),
            submission_count: 0,
            created_by: 0,
            created_at: NaiveDateTime::default(),
            updated_at: NaiveDateTime::default(),
        }
    }

    /// Copies the domain's fields into the row's columns.
    pub fn set_fields(&mut self, f: &LeadFields) {
        self.address = f.address.clone();
        self.city = f.city.clone();
        self.state = f.state.clone();
        self.zip_code = f.zip_code.clone();
        self.county = f.county.clone();
        self.first_name = f.first_name.clone();
        self.last_name = f.last_name.clone();
        self.primary_phone = f.primary_phone.clone();
        self.primary_phone_type = f.primary_phone_type.clone();
        self.phone_2 = f.phone_2.clone();
        self.phone_3 = f.phone_3.clone();
        self.phone_4 = f.phone_4.clone();
        self.phone_5 = f.phone_5.clone();
        self.email_1 = f.email_1.clone();
        self.email_2 = f.email_2.clone();
        self.email_3 = f.email_3.clone();
        self.mail_address = f.mail_address.clone();
        self.mail_city = f.mail_city.clone();
        self.mail_state = f.mail_state.clone();
        self.mail_zip = f.mail_zip.clone();
        self.project_number = f.project_number.clone();
        self.permit_date = f.permit_date.clone();
        self.permit_status = f.permit_status.clone();
        self.parcel_number = f.parcel_number.clone();
        self.subdivision = f.subdivision.clone();
        self.lot = f.lot.clone();
        self.work_type = f.work_type.clone();
        self.project_description = f.project_description.clone();
        self.specific_use = f.specific_use.clone();
        self.property_type = f.property_type.clone();
        self.lot_size = f.lot_size.clone();
        self.related_url = f.related_url.clone();
        self.source = f.source.clone();
        self.source_identifier = f.source_identifier.clone();
        self.bedrooms = f.bedrooms.and_then(|b| i32::try_from(b).ok());
        self.latitude = f.latitude;
        self.longitude = f.longitude;
    }
}
