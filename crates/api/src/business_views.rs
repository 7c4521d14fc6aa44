//! The JSON shapes of business requests and answers.
use std::collections::BTreeMap;
use std::fmt;

use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use validator::Validate;

use leadhub_domain::business::model::MAX_FIELD_LEN;
use leadhub_domain::business::{
    element_problems, Business, BusinessFields, BusinessStatistics, ImportElement, ImportOutcome,
};
use leadhub_domain::error::LocPart;
use leadhub_http::extract::problems::problems;
use leadhub_http::extract::{json_type, Lax};
use leadhub_http::time::iso;

use crate::page::page_type;

/// One business of an import. Only `name` is required; a bad element (no name, a state that is
/// not a US code, an invalid phone, rating outside 0..=5, negative review_count, a wrong JSON
/// type) is reported in `errors` by index and the rest are imported.
#[derive(Deserialize, Validate, JsonSchema)]
pub struct BusinessInput {
    /// e.g. "Joe's Plumbing LLC"
    #[schemars(required)]
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub name: Lax<String>,
    /// Stored as E.164 (`+15125550100`); a number that is not valid by libphonenumber's rules
    /// (as for leads) makes the element bad (in `errors`).
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub phone: Lax<String>,
    /// e.g. "https://joesplumbing.com"
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub website: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub address: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub city: Lax<String>,
    /// US state, DC or territory code, any case.
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub state: Lax<String>,
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub zip_code: Lax<String>,
    /// With auto_categorize, mapped to a canonical slug (plumbing, hvac, roofing, electrical,
    /// real_estate, solar, landscaping, pest_control, pools, painting, general_contractor).
    #[validate(custom(function = "json_type"), length(max = 255))]
    pub industry: Lax<String>,
    /// 0 to 5.
    #[validate(custom(function = "json_type"))]
    pub rating: Lax<f64>,
    /// 0 or more.
    #[validate(custom(function = "json_type"))]
    pub review_count: Lax<i64>,
}

impl BusinessInput {
    /// The element as the import takes it: its fields, or every reason it is refused, for a
    /// person (its fields' problems, then the domain's element rules).
    pub fn into_element(self) -> ImportElement {
        let problems = match self.validate() {
            Ok(()) => Vec::new(),
            Err(errors) => problems::<BusinessInput>(&errors, Vec::new()),
        };
        let mut fields = BusinessFields {
            name: self.name.into_text(),
            phone: self.phone.into_text(),
            website: self.website.into_text(),
            address: self.address.into_text(),
            city: self.city.into_text(),
            state: self.state.into_text(),
            zip_code: self.zip_code.into_text(),
            industry: self.industry.into_text(),
            rating: self.rating.into_value(),
            review_count: self.review_count.into_value(),
        };
        if problems.is_empty() {
            return Ok(fields);
        }
        let mut reasons = Vec::with_capacity(problems.len());
        for problem in &problems {
            let field = match problem.loc.last() {
                Some(LocPart::Field(f)) => f.as_str(),
                _ => "",
            };
            // A value with a problem cannot be used: the element rules see it as absent.
            if let Some(value) = fields.string_field_mut(field) {
                *value = None;
            }
            reasons.push(format!("{field}: {}", problem.msg));
        }
        reasons.extend(element_problems(&fields));
        Err(reasons.join("; "))
    }
}

/// One element of an import's `businesses`: a business, or something that is not an object.
pub enum BusinessItem {
    Business(Box<BusinessInput>),
    NotAnObject,
}

impl BusinessItem {
    pub fn into_element(self) -> ImportElement {
        match self {
            BusinessItem::Business(input) => input.into_element(),
            BusinessItem::NotAnObject => Err("Input should be an object".to_owned()),
        }
    }
}

impl<'de> Deserialize<'de> for BusinessItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = BusinessItem;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<BusinessItem, A::Error> {
        BusinessInput::deserialize(MapAccessDeserializer::new(map))
            .map(|input| BusinessItem::Business(Box::new(input)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BusinessItem, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(BusinessItem::NotAnObject)
    }
    fn visit_bool<E>(self, _: bool) -> Result<BusinessItem, E> {
        Ok(BusinessItem::NotAnObject)
    }
    fn visit_i64<E>(self, _: i64) -> Result<BusinessItem, E> {
        Ok(BusinessItem::NotAnObject)
    }
    fn visit_u64<E>(self, _: u64) -> Result<BusinessItem, E> {
        Ok(BusinessItem::NotAnObject)
    }
    fn visit_f64<E>(self, _: f64) -> Result<BusinessItem, E> {
        Ok(BusinessItem::NotAnObject)
    }
    fn visit_str<E>(self, _: &str) -> Result<BusinessItem, E> {
        Ok(BusinessItem::NotAnObject)
    }
    fn visit_unit<E>(self) -> Result<BusinessItem, E> {
        Ok(BusinessItem::NotAnObject)
    }
}

/// As `null` (validator keeps a failing list's elements with its problem; only their count
/// is used).
impl Serialize for BusinessItem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

/// Documented as the business it should be.
impl JsonSchema for BusinessItem {
    fn schema_name() -> String {
        BusinessInput::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        BusinessInput::json_schema(generator)
    }
}

/// A rejected element of an import.
#[derive(Serialize, JsonSchema)]
pub struct ImportErrorView {
    /// Zero-based position in `businesses`.
    pub index: usize,
    /// Every reason, e.g. `state: "XX" is not a US state, DC or territory code`.
    pub detail: String,
}

/// An element skipped as a duplicate.
#[derive(Serialize, JsonSchema)]
pub struct SkippedView {
    pub index: usize,
    /// The stored business it duplicates.
    pub duplicate_of: i64,
}

/// The answer to an import.
#[derive(Serialize, JsonSchema, apistos::ApiComponent)]
pub struct ImportResult {
    pub imported_count: usize,
    pub skipped_count: usize,
    pub error_count: usize,
    /// Ids of the new businesses, in element order.
    pub imported_ids: Vec<i64>,
    pub errors: Vec<ImportErrorView>,
    pub skipped: Vec<SkippedView>,
}

impl From<&ImportOutcome> for ImportResult {
    fn from(o: &ImportOutcome) -> Self {
        ImportResult {
            imported_count: o.imported.len(),
            skipped_count: o.skipped.len(),
            error_count: o.errors.len(),
            imported_ids: o.imported.iter().map(|(_, id)| *id).collect(),
            errors: o
                .errors
                .iter()
                .map(|e| ImportErrorView {
                    index: e.index,
                    detail: e.detail.clone(),
                })
                .collect(),
            skipped: o
                .skipped
                .iter()
                .map(|(index, id)| SkippedView {
                    index: *index,
                    duplicate_of: *id,
                })
                .collect(),
        }
    }
}

/// A stored business: the imported fields plus what the service keeps.
#[derive(Serialize, JsonSchema, apistos::ApiComponent)]
pub struct BusinessView {
    pub id: i64,
    pub name: String,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub industry: Option<String>,
    pub rating: Option<f64>,
    pub review_count: Option<i64>,
    /// lead_buyer, lead_source, marketing_partner or prospect.
    pub relationship_type: String,
    /// prospect (on import), active or inactive.
    pub status: String,
    pub team_id: Option<i64>,
    pub created_at: String,
    pub updated_at: String,
}

impl From<&Business> for BusinessView {
    fn from(b: &Business) -> Self {
        BusinessView {
            id: b.id,
            name: b.name.clone(),
            phone: b.phone.clone(),
            website: b.website.clone(),
            address: b.address.clone(),
            city: b.city.clone(),
            state: b.state.clone(),
            zip_code: b.zip_code.clone(),
            industry: b.industry.clone(),
            rating: b.rating,
            review_count: b.review_count,
            relationship_type: b.relationship_type.clone(),
            status: b.status.clone(),
            team_id: b.team_id,
            created_at: iso(b.created_at),
            updated_at: iso(b.updated_at),
        }
    }
}

page_type! {
    /// A page of businesses.
    BusinessPage of BusinessView
}

/// Counts over the businesses the caller can see; each `by_*` maps a value to its count (a
/// missing industry or state counts as "unknown").
#[derive(Serialize, JsonSchema, apistos::ApiComponent)]
pub struct StatisticsView {
    pub total: i64,
    /// e.g. {"lead_buyer": 3, "prospect": 10}
    pub by_relationship_type: BTreeMap<String, i64>,
    /// e.g. {"plumbing": 7, "hvac": 5, "unknown": 1}
    pub by_industry: BTreeMap<String, i64>,
    /// e.g. {"TX": 12, "OK": 1}
    pub by_state: BTreeMap<String, i64>,
    /// e.g. {"prospect": 11, "active": 2}
    pub by_status: BTreeMap<String, i64>,
}

impl From<BusinessStatistics> for StatisticsView {
    fn from(s: BusinessStatistics) -> Self {
        StatisticsView {
            total: s.total,
            by_relationship_type: s.by_relationship_type,
            by_industry: s.by_industry,
            by_state: s.by_state,
            by_status: s.by_status,
        }
    }
}

/// The longest text a business field takes is the domain's.
const _: () = assert!(MAX_FIELD_LEN == 255);
