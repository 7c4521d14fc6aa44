//! The fields of a lead: what a submission may carry, and what a stored lead holds.
use serde::{Deserialize, Serialize};

/// Every submittable field of a lead, all optional. After JSON typing (web layer) these are the
/// raw values; after `normalize` the same struct holds the normalised ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LeadFields {
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
    pub bedrooms: Option<i64>,
    pub related_url: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub source: Option<String>,
    pub source_identifier: Option<String>,
}

/// The fields a lead's address is made of: a change to any of them moves its address keys.
pub const ADDRESS_FIELDS: [&str; 4] = ["address", "city", "state", "zip_code"];

impl LeadFields {
    /// The key of the lead's address (USPS Publication 28), None without a readable address.
    pub fn address_key(&self) -> Option<crate::address::AddressKey> {
        crate::address::AddressKey::parse(
            self.address.as_deref()?,
            self.city.as_deref(),
            self.state.as_deref(),
            self.zip_code.as_deref(),
        )
    }

    /// The lead's phone numbers in slot order, the empty slots skipped (the first is the one to
    /// call).
    pub fn phones(&self) -> impl Iterator<Item = &str> {
        [
            &self.primary_phone,
            &self.phone_2,
            &self.phone_3,
            &self.phone_4,
            &self.phone_5,
        ]
        .into_iter()
        .filter_map(|number| number.as_deref())
    }

    /// Whether no field holds a value (a lead with no field at all is refused).
    pub fn is_empty(&self) -> bool {
        *self == LeadFields::default()
    }
}

/// The lead export's columns after `id`, `team_id` and the string fields: named as in the lead's JSON, the
/// working state (status, owner, archive, follow-up day, the contacts logged, the do-not-call mark, tags, the
/// barred numbers) last; the owner
/// also by e-mail, which a person reading the file recognises. An import knows them (most are
/// no field it takes), so an export imported again is not asked about them.
pub const EXPORT_RECORD_COLUMNS: [&str; 26] = [
    "bedrooms",
    "latitude",
    "longitude",
    "address_standardized",
    "lot_size_acres",
    "geocode_source",
    "geocode_match",
    "geocode_matched_address",
    "appraisal",
    "enrichment_status",
    "submission_count",
    "created_at",
    "updated_at",
    "county_fips",
    "status",
    "assignee_id",
    "assignee_email",
    "archived_at",
    "follow_up_on",
    "last_contact_at",
    "last_contact_outcome",
    "contact_count",
    "do_not_call",
    "tags",
    "wrong_phones",
    "do_not_call_phones",
];

/// The string fields, named once: the name list and both by-name accessors come from here.
macro_rules! string_fields {
    ($($name:ident),* $(,)?) => {
        /// The names of the string fields, in the order of the interface spec.
        pub const STRING_FIELDS: [&str; STRING_FIELD_COUNT] = [$(stringify!($name)),*];

        /// How many string fields there are: counted from the list, never written by hand.
        pub const STRING_FIELD_COUNT: usize = [$(stringify!($name)),*].len();

        impl LeadFields {
            /// The string field called `name`, for code that walks fields by name.
            pub fn string_field(&self, name: &str) -> Option<&Option<String>> {
                match name {
                    $(stringify!($name) => Some(&self.$name),)*
                    _ => None,
                }
            }

            /// Every string field, in `STRING_FIELDS` order (for code that walks them all,
            /// such as an export, without a lookup by name for each).
            pub fn string_values(&self) -> [&Option<String>; STRING_FIELD_COUNT] {
                [$(&self.$name),*]
            }

            /// Mutable access by name, the twin of `string_field`.
            pub fn string_field_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }

            /// Fields whose text fields are `read(name)` of each, in `STRING_FIELDS` order,
            /// and whose other fields are empty. Reaching each field by name instead would
            /// compare each field's name with every other's, for every lead.
            pub fn from_strings(mut read: impl FnMut(&'static str) -> Option<String>) -> Self {
                LeadFields {
                    $($name: read(stringify!($name)),)*
                    ..LeadFields::default()
                }
            }

            /// A copy whose text fields are `map` of each present one (absent when it returns
            /// `None`), in `STRING_FIELDS` order; the other fields are copied as they are.
            pub fn map_strings(&self, mut map: impl FnMut(&str) -> Option<String>) -> Self {
                LeadFields {
                    $($name: self.$name.as_deref().and_then(&mut map),)*
                    ..*self
                }
            }
        }
    };
}

/// Calls the macro `$then` with the names of the string fields, in the order of the interface
/// spec: the one list of them, from which this crate and the database's column mapping generate
/// their code.
#[macro_export]
macro_rules! with_string_fields {
    ($then:ident) => {
        $then!(
            address,
            city,
            state,
            zip_code,
            county,
            first_name,
            last_name,
            primary_phone,
            primary_phone_type,
            phone_2,
            phone_3,
            phone_4,
            phone_5,
            email_1,
            email_2,
            email_3,
            mail_address,
            mail_city,
            mail_state,
            mail_zip,
            project_number,
            permit_date,
            permit_status,
            parcel_number,
            subdivision,
            lot,
            work_type,
            project_description,
            specific_use,
            property_type,
            lot_size,
            related_url,
            source,
            source_identifier
        );
    };
}

with_string_fields!(string_fields);

pub const PHONE_TYPES: [&str; 3] = ["mobile", "landline", "voip"];
pub const PROPERTY_TYPES: [&str; 4] = ["residential", "commercial", "agricultural", "vacant_land"];

/// Longest accepted value of a string field, in characters.
pub fn max_len(field: &str) -> usize {
    match field {
        "project_description" => 5000,
        "related_url" => 2048,
        _ => 255,
    }
}

/// Something that could not be used, reported with the submission instead of rejecting it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub field: String,
    pub code: String,
    pub message: String,
}

impl Warning {
    pub fn new(field: &str, code: &str, message: impl Into<String>) -> Self {
        Warning {
            field: field.to_owned(),
            code: code.to_owned(),
            message: message.into(),
        }
    }
}
